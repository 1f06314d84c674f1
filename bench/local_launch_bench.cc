// Local launch latency: from SubmitTrainingJob until every replica of the
// trial runs its trainer, for a 4-replica trial (1 master, 2 workers, 1
// parameter server, 1 fake GPU each) against a 1-replica trial (1 master,
// 1 GPU) as the baseline, alternated in the same run against one real
// `vernier serve --gpus 0,1,2,3`. See docs/benchmarks.md.
//
//   build/bin/local_launch_bench --rounds 10
//
// Each replica's trainer is a shell that writes the wall-clock time it
// started (ns) to a file of its own under the trial's job dir and then
// sleeps; the latency of a round is the latest of those times minus the
// time just before the submit RPC. The job is cancelled before the next
// round.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "CLI/CLI.hpp"
#include "absl/strings/str_format.h"
#include "tests/support/job_client.h"
#include "tests/support/server_process.h"
#include "tests/support/subprocess.h"
#include "vernier/v1/job_service.grpc.pb.h"

namespace vernier::bench {
namespace {

// Writes its start time to JOB_DIR/started/XXXXXX, then waits to be ended.
const char kTrainer[] =
    "now=$(date +%s%N); for a; do case $a in --job-dir=*) d=${a#--job-dir=};; esac; done; "
    "mkdir -p $d/started; f=$(mktemp $d/started/XXXXXX); echo $now > $f; exec sleep 300";

int64_t NowNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

v1::Job LaunchJob(const std::string& job_id, const std::string& job_dir, bool distributed) {
  v1::Job job;
  job.set_job_id(job_id);
  job.set_job_dir(job_dir);
  for (const char* word : {"/bin/sh", "-c", kTrainer, "trainer"}) job.add_command(word);
  v1::TrainingInput& input = *job.mutable_training_input();
  input.set_scale_tier("CUSTOM");
  input.set_master_type("n1-standard-4");
  const auto one_gpu = [](v1::ReplicaConfig* config) {
    config->mutable_accelerator_config()->set_count(1);
    config->mutable_accelerator_config()->set_type("NVIDIA_TESLA_T4");
  };
  one_gpu(input.mutable_master_config());
  if (distributed) {
    input.set_worker_type("n1-standard-4");
    input.set_worker_count(2);
    one_gpu(input.mutable_worker_config());
    input.set_parameter_server_type("n1-standard-4");
    input.set_parameter_server_count(1);
    one_gpu(input.mutable_parameter_server_config());
  }
  v1::HyperparameterSpec& hyperparameters = *input.mutable_hyperparameters();
  hyperparameters.set_goal(v1::MetricSpec::MAXIMIZE);
  hyperparameters.set_hyperparameter_metric_tag("accuracy");
  hyperparameters.set_max_trials(1);
  hyperparameters.set_max_parallel_trials(1);
  hyperparameters.set_algorithm(v1::RANDOM_SEARCH);
  v1::ParameterSpec& param = *hyperparameters.add_params();
  param.set_parameter_name("lr");
  param.set_type(v1::ParameterSpec::DOUBLE);
  param.set_min_value(0.01);
  param.set_max_value(0.1);
  return job;
}

// Submits, waits until `replicas` trainers wrote their start time; returns
// the latency in milliseconds.
double MeasureLaunch(const testing::ServerProcess& server, const std::string& root, int round,
                     bool distributed) {
  const int replicas = distributed ? 4 : 1;
  const std::string job_id = absl::StrFormat("launch_%d_%d", replicas, round);
  const std::string job_dir = absl::StrFormat("%s/%s", root, job_id);
  v1::SubmitTrainingJobRequest request;
  *request.mutable_job() = LaunchJob(job_id, job_dir, distributed);
  v1::Job created;
  grpc::ClientContext context;
  const int64_t submitted = NowNanos();
  grpc::Status status = server.JobStub()->SubmitTrainingJob(&context, request, &created);
  if (!status.ok()) {
    std::cerr << "submit failed: " << status.error_message() << "\n" << server.log();
    std::exit(1);
  }
  std::vector<int64_t> started;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (static_cast<int>(started.size()) < replicas) {
    if (std::chrono::steady_clock::now() > deadline) {
      std::cerr << job_id << ": the replicas did not all start within 60 s\n" << server.log();
      std::exit(1);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    started.clear();
    std::error_code error;
    for (const auto& trial : std::filesystem::directory_iterator(job_dir, error)) {
      const std::filesystem::path dir = trial.path() / "started";
      for (const auto& file : std::filesystem::directory_iterator(dir, error)) {
        std::ifstream in(file.path());
        int64_t nanos = 0;
        if (in >> nanos) started.push_back(nanos);
      }
    }
  }
  const double latency_ms =
      static_cast<double>(*std::max_element(started.begin(), started.end()) - submitted) / 1e6;
  testing::RunCommand(testing::Cli(server, {"jobs", "cancel", job_id}));
  testing::WaitForJob(server, job_id, testing::Ended, std::chrono::seconds(60));
  return latency_ms;
}

struct Summary {
  double p50;
  double mean;
  double min;
  double max;
};

Summary Summarize(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  double sum = 0;
  for (double value : values) sum += value;
  const size_t n = values.size();
  const double p50 = n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
  return {p50, sum / static_cast<double>(n), values.front(), values.back()};
}

}  // namespace
}  // namespace vernier::bench

int main(int argc, char** argv) {
  int rounds = 10;
  CLI::App app{"Local launch latency: submit to every replica of a trial running"};
  app.add_option("--rounds", rounds, "Trials of each shape, alternated")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  // ServerProcess runs the `vernier` of this binary's build tree.
  if (std::getenv("VERNIER_BUILD_DIR") == nullptr) {
    const auto build_dir =
        std::filesystem::read_symlink("/proc/self/exe").parent_path().parent_path();
    setenv("VERNIER_BUILD_DIR", build_dir.c_str(), 1);
  }

  vernier::testing::TempDir dir;
  vernier::testing::ServerProcess server(dir.path() + "/data", 0, {"--gpus", "0,1,2,3"});
  server.Start();
  std::vector<double> single;
  std::vector<double> distributed;
  // One unmeasured round of each warms the page cache.
  vernier::bench::MeasureLaunch(server, dir.path() + "/jobs", 0, false);
  vernier::bench::MeasureLaunch(server, dir.path() + "/jobs", 0, true);
  for (int round = 1; round <= rounds; ++round) {
    single.push_back(vernier::bench::MeasureLaunch(server, dir.path() + "/jobs", round, false));
    distributed.push_back(vernier::bench::MeasureLaunch(server, dir.path() + "/jobs", round, true));
  }
  const auto one = vernier::bench::Summarize(single);
  const auto four = vernier::bench::Summarize(distributed);
  std::cout << "| trial | rounds | p50 ms | mean ms | min ms | max ms |\n"
            << "|---|---:|---:|---:|---:|---:|\n";
  for (const auto& [name, summary] :
       {std::pair{"1 replica (master, 1 GPU): baseline", one},
        std::pair{"4 replicas (master, 2 workers, ps; 1 GPU each)", four}}) {
    std::cout << absl::StrFormat("| %s | %d | %.1f | %.1f | %.1f | %.1f |\n", name, rounds,
                                 summary.p50, summary.mean, summary.min, summary.max);
  }
  std::cout << absl::StrFormat("\nratio of p50s (4 replicas / 1 replica): %.2f\n",
                               four.p50 / one.p50);
  server.Stop();
  return 0;
}
