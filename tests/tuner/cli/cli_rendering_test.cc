// How the client commands render the server's answers, against an
// in-process gRPC server that returns canned responses (the real server is
// exercised end to end in tests/e2e).
#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/message_differencer.h>
#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/tuner/cli/cli_test_runner.h"
#include "vernier/v1/job_service.grpc.pb.h"
#include "vernier/v1/study_service.grpc.pb.h"

namespace vernier::cli {
namespace {

using ::google::protobuf::util::MessageDifferencer;
using testing::CliRun;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

// 2024-05-01 12:00:00 UTC: the clock of every rendering below.
const absl::Time kNow = absl::FromUnixSeconds(1714564800);

google::protobuf::Timestamp SecondsBeforeNow(double seconds) {
  const absl::Time time = kNow - absl::Seconds(seconds);
  google::protobuf::Timestamp timestamp;
  timestamp.set_seconds(absl::ToUnixSeconds(time));
  timestamp.set_nanos(static_cast<int32_t>((time - absl::FromUnixSeconds(timestamp.seconds())) /
                                           absl::Nanoseconds(1)));
  return timestamp;
}

v1::ParameterValue Double(const std::string& name, double value) {
  v1::ParameterValue parameter;
  parameter.set_parameter_name(name);
  parameter.set_double_value(value);
  return parameter;
}

v1::ParameterValue Int(const std::string& name, int64_t value) {
  v1::ParameterValue parameter;
  parameter.set_parameter_name(name);
  parameter.set_int_value(value);
  return parameter;
}

v1::ParameterValue String(const std::string& name, const std::string& value) {
  v1::ParameterValue parameter;
  parameter.set_parameter_name(name);
  parameter.set_string_value(value);
  return parameter;
}

v1::Measurement Measure(int64_t step, const std::string& metric, double value) {
  v1::Measurement measurement;
  measurement.set_step(step);
  v1::Metric* added = measurement.add_metrics();
  added->set_metric_id(metric);
  added->set_value(value);
  return measurement;
}

v1::Study CannedStudy() {
  v1::Study study;
  study.set_name("mnist");
  study.set_state(v1::Study::ACTIVE);
  *study.mutable_create_time() = SecondsBeforeNow(3600);
  v1::StudySpec& spec = *study.mutable_spec();
  spec.set_algorithm(v1::GAUSSIAN_PROCESS_BANDIT);
  spec.set_max_trials(20);
  spec.set_max_parallel_trials(2);
  spec.set_seed(42);
  spec.mutable_early_stopping()->set_enabled(true);
  spec.mutable_early_stopping()->set_policy(v1::EarlyStoppingSpec::MEDIAN_STOPPING);
  spec.mutable_early_stopping()->set_start_step(5);
  spec.mutable_early_stopping()->set_min_trials(3);
  v1::MetricSpec* accuracy = spec.add_metrics();
  accuracy->set_metric_id("accuracy");
  accuracy->set_goal(v1::MetricSpec::MAXIMIZE);
  v1::ParameterSpec* lr = spec.add_parameters();
  lr->set_parameter_name("lr");
  lr->set_type(v1::ParameterSpec::DOUBLE);
  lr->set_min_value(0.0001);
  lr->set_max_value(0.1);
  lr->set_scale_type(v1::ParameterSpec::UNIT_LOG_SCALE);
  v1::ParameterSpec* layers = spec.add_parameters();
  layers->set_parameter_name("layers");
  layers->set_type(v1::ParameterSpec::INTEGER);
  layers->set_min_value(1);
  layers->set_max_value(5);
  v1::ParameterSpec* optimizer = spec.add_parameters();
  optimizer->set_parameter_name("optimizer");
  optimizer->set_type(v1::ParameterSpec::CATEGORICAL);
  optimizer->add_categorical_values("adam");
  optimizer->add_categorical_values("sgd");
  v1::ParameterSpec* batch = spec.add_parameters();
  batch->set_parameter_name("batch");
  batch->set_type(v1::ParameterSpec::DISCRETE);
  batch->add_discrete_values(16);
  batch->add_discrete_values(32);
  batch->set_scale_type(v1::ParameterSpec::UNIT_LINEAR_SCALE);
  return study;
}

// Best first: a finished trial, then a running one that has only a latest
// measurement.
std::vector<v1::Trial> CannedOptimalTrials() {
  v1::Trial finished;
  finished.set_id(3);
  finished.set_study_name("mnist");
  finished.set_state(v1::Trial::SUCCEEDED);
  *finished.add_parameters() = Double("lr", 0.01);
  *finished.add_parameters() = Int("layers", 3);
  *finished.add_parameters() = String("optimizer", "adam");
  *finished.mutable_final_measurement() = Measure(100, "accuracy", 0.93);
  *finished.mutable_latest_measurement() = Measure(100, "accuracy", 0.93);
  *finished.mutable_start_time() = SecondsBeforeNow(1000);
  *finished.mutable_end_time() = SecondsBeforeNow(1000 - 245);

  v1::Trial running;
  running.set_id(5);
  running.set_study_name("mnist");
  running.set_state(v1::Trial::ACTIVE);
  *running.add_parameters() = Double("lr", 0.05);
  *running.add_parameters() = Int("layers", 1);
  *running.add_parameters() = String("optimizer", "sgd");
  *running.mutable_latest_measurement() = Measure(40, "accuracy", 0.9);
  *running.mutable_start_time() = SecondsBeforeNow(3.25);
  return {finished, running};
}

// Two objectives and an outcome constraint.
google::protobuf::RepeatedPtrField<v1::MetricSpec> ParetoMetrics() {
  google::protobuf::RepeatedPtrField<v1::MetricSpec> metrics;
  v1::MetricSpec* accuracy = metrics.Add();
  accuracy->set_metric_id("accuracy");
  accuracy->set_goal(v1::MetricSpec::MAXIMIZE);
  v1::MetricSpec* latency = metrics.Add();
  latency->set_metric_id("latency");
  latency->set_goal(v1::MetricSpec::MINIMIZE);
  v1::MetricSpec* memory = metrics.Add();
  memory->set_metric_id("memory");
  memory->mutable_constraint()->set_max_value(8);
  return metrics;
}

v1::Study ParetoStudy() {
  v1::Study study = CannedStudy();
  study.set_name("pareto");
  *study.mutable_spec()->mutable_metrics() = ParetoMetrics();
  study.mutable_spec()->clear_early_stopping();
  return study;
}

// The front of the "pareto" study.
std::vector<v1::Trial> ParetoFront() {
  std::vector<v1::Trial> front;
  for (const auto& [id, accuracy, latency] :
       {std::tuple{4, 0.95, 30.0}, std::tuple{2, 0.9, 12.5}}) {
    v1::Trial& trial = front.emplace_back();
    trial.set_id(id);
    trial.set_study_name("pareto");
    trial.set_state(v1::Trial::SUCCEEDED);
    *trial.add_parameters() = Int("layers", id);
    v1::Measurement& final_measurement = *trial.mutable_final_measurement();
    final_measurement = Measure(10, "accuracy", accuracy);
    v1::Metric* more = final_measurement.add_metrics();
    more->set_metric_id("latency");
    more->set_value(latency);
    more = final_measurement.add_metrics();
    more->set_metric_id("memory");
    more->set_value(id * 1.5);
    *trial.mutable_start_time() = SecondsBeforeNow(100);
    *trial.mutable_end_time() = SecondsBeforeNow(40);
  }
  return front;
}

v1::GetJobResponse CannedJob() {
  v1::GetJobResponse response;
  v1::Job& job = *response.mutable_job();
  job.set_job_id("mnist");
  job.set_study_name("mnist");
  job.set_state(v1::Job::RUNNING);
  job.set_algorithm_description("GAUSSIAN_PROCESS_BANDIT");
  job.set_job_dir("/runs/mnist");
  job.add_command("python3");
  job.add_command("train.py");
  job.add_command("--note=two words");
  *job.mutable_create_time() = SecondsBeforeNow(300);
  *job.mutable_start_time() = SecondsBeforeNow(245);
  v1::HyperparameterSpec& hyperparameters =
      *job.mutable_training_input()->mutable_hyperparameters();
  hyperparameters.set_goal(v1::MetricSpec::MINIMIZE);
  hyperparameters.set_hyperparameter_metric_tag("loss");
  hyperparameters.set_max_trials(10);
  const auto add_spec = [&](const std::string& role, int index, const std::string& type, int gpus) {
    v1::ReplicaSpec* spec = job.add_replica_specs();
    spec->set_role(role);
    spec->set_index(index);
    spec->set_machine_type(type);
    spec->set_cpu_count(8);
    spec->set_memory_mb(30720);
    spec->set_gpu_count(gpus);
    if (gpus > 0) spec->set_gpu_type("NVIDIA_TESLA_T4");
  };
  add_spec("master", 0, "n1-standard-8", 1);
  add_spec("worker", 0, "n1-standard-8", 1);
  add_spec("worker", 1, "n1-standard-8", 1);
  add_spec("ps", 0, "complex_model_s", 0);
  v1::TrainingOutput& output = *job.mutable_training_output();
  const auto add_output = [&](const std::string& id, double loss, v1::Trial::State state) {
    v1::HyperparameterOutput* trial = output.add_trials();
    trial->set_trial_id(id);
    trial->set_state(state);
    trial->mutable_final_metric()->set_objective_value(loss);
    trial->mutable_final_metric()->set_training_step(50);
    (*trial->mutable_hyperparameters())["lr"] = "0.01";
    (*trial->mutable_hyperparameters())["layers"] = "2";
  };
  add_output("1", 0.40, v1::Trial::SUCCEEDED);
  add_output("2", 0.05, v1::Trial::FAILED);  // lower, but a failed trial is never best
  add_output("4", 0.25, v1::Trial::SUCCEEDED);
  output.add_trials()->set_trial_id("6");  // running: no final metric
  v1::TrialCounts& counts = *response.mutable_trial_counts();
  counts.set_requested(1);
  counts.set_active(2);
  counts.set_succeeded(3);
  counts.set_failed(1);
  counts.set_stopped_early(1);
  // Trial 1 has ended: its run, with the last replica state seen, is not shown.
  v1::TrialRun& ended = *response.add_trial_runs();
  ended.set_trial_id(1);
  v1::ReplicaStatus& stale = *ended.add_replicas();
  stale.set_role("master");
  stale.set_state(v1::ReplicaStatus::RUNNING);
  stale.set_pid(4000);
  v1::TrialRun& run = *response.add_trial_runs();
  run.set_trial_id(6);
  for (int index = 0; index < 2; ++index) {
    v1::ReplicaStatus& replica = *run.add_replicas();
    replica.set_role(index == 0 ? "master" : "worker");
    replica.set_index(0);
    replica.set_state(v1::ReplicaStatus::RUNNING);
    replica.set_host("localhost");
    replica.set_pid(4100 + index);
    replica.set_log_path("/runs/mnist/6/logs/" + replica.role() + "-0.log");
    replica.add_gpus(2 * index);
  }
  run.mutable_replicas(1)->add_gpus(3);
  return response;
}

// Canned answers, and a record of what the CLI asked.
class FakeVernierServer final : public v1::JobService::Service, public v1::StudyService::Service {
 public:
  FakeVernierServer() {
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port_);
    builder.RegisterService(static_cast<v1::JobService::Service*>(this));
    builder.RegisterService(static_cast<v1::StudyService::Service*>(this));
    server_ = builder.BuildAndStart();
  }
  ~FakeVernierServer() override { server_->Shutdown(); }

  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }

  grpc::Status SubmitTrainingJob(grpc::ServerContext*, const v1::SubmitTrainingJobRequest* request,
                                 v1::Job* response) override {
    absl::MutexLock lock(&mutex_);
    submitted_ = request->job();
    *response = request->job();
    response->set_state(v1::Job::QUEUED);
    return grpc::Status::OK;
  }

  grpc::Status GetJob(grpc::ServerContext* context, const v1::GetJobRequest* request,
                      v1::GetJobResponse* response) override {
    if (request->job_id() == "slow") {
      // Answers only once the client has given up.
      const auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (!context->IsCancelled() && std::chrono::steady_clock::now() < limit) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      return grpc::Status::CANCELLED;
    }
    if (request->job_id() == "broken") {
      *response = CannedJob();
      response->mutable_job()->set_job_id("broken");
      response->mutable_job()->set_state(v1::Job::FAILED);
      response->mutable_job()->set_error_message(
          "3 trials failed; last: master-0 exited with code 1");
      *response->mutable_job()->mutable_end_time() = SecondsBeforeNow(10);
      response->clear_trial_runs();
      return grpc::Status::OK;
    }
    if (request->job_id() == "pareto") {
      *response = CannedJob();
      v1::Job& job = *response->mutable_job();
      job.set_job_id("pareto");
      job.set_study_name("pareto");
      v1::HyperparameterSpec& hyperparameters =
          *job.mutable_training_input()->mutable_hyperparameters();
      hyperparameters.clear_goal();
      hyperparameters.clear_hyperparameter_metric_tag();
      *hyperparameters.mutable_metrics() = ParetoMetrics();
      response->clear_trial_runs();
      return grpc::Status::OK;
    }
    if (request->job_id() != "mnist") {
      return grpc::Status(grpc::StatusCode::NOT_FOUND,
                          "job \"" + request->job_id() + "\" not found");
    }
    *response = CannedJob();
    return grpc::Status::OK;
  }

  grpc::Status ListJobs(grpc::ServerContext*, const v1::ListJobsRequest* request,
                        v1::ListJobsResponse* response) override {
    absl::MutexLock lock(&mutex_);
    job_page_requests_.push_back(*request);
    v1::Job* job = response->add_jobs();
    job->set_state(v1::Job::SUCCEEDED);
    job->mutable_training_input()->mutable_hyperparameters()->set_max_trials(10);
    job->mutable_training_output()->set_completed_trial_count(10);
    *job->mutable_create_time() = SecondsBeforeNow(7200);
    *job->mutable_start_time() = SecondsBeforeNow(7000);
    *job->mutable_end_time() = SecondsBeforeNow(7000 - 3725);
    v1::TrainingOutput& output = *job->mutable_training_output();
    if (request->page_token().empty()) {
      job->set_job_id("first_job");
      response->set_next_page_token("page2");
      output.mutable_trial_counts()->set_succeeded(8);
      output.mutable_trial_counts()->set_failed(2);
    } else {
      // Every trial failed; 4 finished trials came from a resumed job.
      job->set_job_id("second_job");
      job->set_state(v1::Job::FAILED);
      output.mutable_trial_counts()->set_failed(10);
      output.mutable_trial_counts()->set_succeeded(4);
      output.set_resumed_trial_count(4);
    }
    return grpc::Status::OK;
  }

  grpc::Status CancelJob(grpc::ServerContext*, const v1::CancelJobRequest* request,
                         v1::Job* response) override {
    response->set_job_id(request->job_id());
    response->set_state(v1::Job::CANCELLING);
    return grpc::Status::OK;
  }

  grpc::Status StreamLogs(grpc::ServerContext*, const v1::StreamLogsRequest* request,
                          grpc::ServerWriter<v1::LogLine>* writer) override {
    {
      absl::MutexLock lock(&mutex_);
      logs_request_ = *request;
    }
    const auto line = [](int64_t trial, const std::string& role, int index, const std::string& text,
                         int attempt = 0) {
      v1::LogLine log_line;
      log_line.set_attempt(attempt);
      log_line.set_trial_id(trial);
      log_line.set_role(role);
      log_line.set_index(index);
      log_line.set_text(text);
      return log_line;
    };
    const auto agent_line = [&line](int64_t trial, const std::string& role, int index,
                                    const std::string& text) {
      v1::LogLine log_line = line(trial, role, index, text);
      log_line.set_agent(true);
      return log_line;
    };
    for (const v1::LogLine& log_line :
         {line(3, "master", 0, "epoch=1 accuracy=0.5"), line(3, "worker", 1, "ready\n"),
          line(4, "master", 0, "epoch=1 accuracy=0.6"), line(4, "ps", 0, "resumed", 2),
          agent_line(4, "master", 0, "2026-11-26T04:00:00.000 info: trainer exited with 0")}) {
      if (request->trial_id() != 0 && log_line.trial_id() != request->trial_id()) continue;
      writer->Write(log_line);
    }
    return grpc::Status::OK;
  }

  grpc::Status GetStudy(grpc::ServerContext*, const v1::GetStudyRequest* request,
                        v1::Study* response) override {
    if (request->study_name() == "pareto") {
      *response = ParetoStudy();
      return grpc::Status::OK;
    }
    if (request->study_name() != "mnist") {
      return grpc::Status(grpc::StatusCode::NOT_FOUND,
                          "study \"" + request->study_name() + "\" not found");
    }
    *response = CannedStudy();
    return grpc::Status::OK;
  }

  grpc::Status ListStudies(grpc::ServerContext*, const v1::ListStudiesRequest*,
                           v1::ListStudiesResponse* response) override {
    *response->add_studies() = CannedStudy();
    // A study created without an algorithm shows the one that runs.
    v1::Study* unspecified = response->add_studies();
    *unspecified = CannedStudy();
    unspecified->set_name("auto");
    unspecified->mutable_spec()->set_algorithm(v1::ALGORITHM_UNSPECIFIED);
    v1::Study* other = response->add_studies();
    other->set_name("direct");
    other->set_state(v1::Study::COMPLETED);
    other->mutable_spec()->set_algorithm(v1::RANDOM_SEARCH);
    v1::MetricSpec* loss = other->mutable_spec()->add_metrics();
    loss->set_metric_id("loss");
    loss->set_goal(v1::MetricSpec::MINIMIZE);
    *other->mutable_create_time() = SecondsBeforeNow(60);
    return grpc::Status::OK;
  }

  grpc::Status DeleteStudy(grpc::ServerContext*, const v1::DeleteStudyRequest* request,
                           v1::DeleteStudyResponse*) override {
    absl::MutexLock lock(&mutex_);
    deleted_.push_back(request->study_name());
    return grpc::Status::OK;
  }

  // Two pages: the optimal trials, then a failed one with a reason.
  grpc::Status ListTrials(grpc::ServerContext*, const v1::ListTrialsRequest* request,
                          v1::ListTrialsResponse* response) override {
    absl::MutexLock lock(&mutex_);
    trial_page_requests_.push_back(*request);
    if (request->page_token().empty()) {
      for (const v1::Trial& trial : CannedOptimalTrials()) *response->add_trials() = trial;
      response->set_next_page_token("more");
      return grpc::Status::OK;
    }
    v1::Trial* failed = response->add_trials();
    failed->set_id(7);
    failed->set_state(v1::Trial::FAILED);
    failed->set_status_reason("master-0 exited with code 1");
    *failed->add_parameters() = Double("lr", 0.1);
    return grpc::Status::OK;
  }

  grpc::Status ListOptimalTrials(grpc::ServerContext*, const v1::ListOptimalTrialsRequest* request,
                                 v1::ListOptimalTrialsResponse* response) override {
    absl::MutexLock lock(&mutex_);
    optimal_request_ = *request;
    if (request->study_name() == "empty") return grpc::Status::OK;
    if (request->study_name() == "pareto") {
      for (const v1::Trial& trial : ParetoFront()) *response->add_trials() = trial;
      return grpc::Status::OK;
    }
    for (const v1::Trial& trial : CannedOptimalTrials()) *response->add_trials() = trial;
    return grpc::Status::OK;
  }

  v1::Job submitted() {
    absl::MutexLock lock(&mutex_);
    return submitted_;
  }
  std::vector<v1::ListJobsRequest> job_page_requests() {
    absl::MutexLock lock(&mutex_);
    return job_page_requests_;
  }
  std::vector<v1::ListTrialsRequest> trial_page_requests() {
    absl::MutexLock lock(&mutex_);
    return trial_page_requests_;
  }
  v1::StreamLogsRequest logs_request() {
    absl::MutexLock lock(&mutex_);
    return logs_request_;
  }
  v1::ListOptimalTrialsRequest optimal_request() {
    absl::MutexLock lock(&mutex_);
    return optimal_request_;
  }
  std::vector<std::string> deleted() {
    absl::MutexLock lock(&mutex_);
    return deleted_;
  }

 private:
  int port_ = 0;
  std::unique_ptr<grpc::Server> server_;
  absl::Mutex mutex_;
  v1::Job submitted_ ABSL_GUARDED_BY(mutex_);
  std::vector<v1::ListJobsRequest> job_page_requests_ ABSL_GUARDED_BY(mutex_);
  std::vector<v1::ListTrialsRequest> trial_page_requests_ ABSL_GUARDED_BY(mutex_);
  v1::StreamLogsRequest logs_request_ ABSL_GUARDED_BY(mutex_);
  v1::ListOptimalTrialsRequest optimal_request_ ABSL_GUARDED_BY(mutex_);
  std::vector<std::string> deleted_ ABSL_GUARDED_BY(mutex_);
};

class CliRenderingTest : public ::testing::Test {
 protected:
  CliRun Run(std::vector<std::string> args, absl::Duration rpc_timeout = absl::Seconds(30)) {
    // Before the trainer command, which starts at `--`.
    const auto separator = std::find(args.begin(), args.end(), "--");
    args.insert(args.insert(separator, server_.address()), "--server");
    CliDependencies dependencies;
    dependencies.now = [] { return kNow; };
    dependencies.rpc_timeout = rpc_timeout;
    return testing::RunCli(args, dependencies);
  }

  FakeVernierServer server_;
};

TEST_F(CliRenderingTest, JobsDescribePrintsStateCountsBestTrialAndReplicas) {
  const CliRun run = Run({"jobs", "describe", "mnist"});
  ASSERT_EQ(run.exit_code, kExitSuccess) << run.err;
  EXPECT_EQ(run.out,
            "Job:         mnist\n"
            "State:       RUNNING\n"
            "Algorithm:   GAUSSIAN_PROCESS_BANDIT\n"
            "Study:       mnist\n"
            "Job dir:     /runs/mnist\n"
            "Command:     python3 train.py '--note=two words'\n"
            "Created:     2024-05-01 11:55:00\n"
            "Started:     2024-05-01 11:55:55\n"
            "Ended:       -\n"
            "Duration:    4m05s\n"
            "Trials:      1 requested, 2 active, 3 succeeded, 1 failed, 0 infeasible, 1 stopped "
            "early (of 10 max)\n"
            "Best trial:  trial 4: loss=0.25 at step 50 (layers=2, lr=0.01)\n"
            "\n"
            "Replicas of each trial:\n"
            "  REPLICA      MACHINE_TYPE     CPUS  MEMORY  GPUS\n"
            "  master-0     n1-standard-8       8   30 GB  1 x NVIDIA_TESLA_T4\n"
            "  worker-0..1  n1-standard-8       8   30 GB  1 x NVIDIA_TESLA_T4\n"
            "  ps-0         complex_model_s     8   30 GB  -\n"
            "\n"
            "Running trials:\n"
            "  TRIAL  REPLICA   STATE    HOST        PID  GPUS  LOG\n"
            "      6  master-0  RUNNING  localhost  4100  0     /runs/mnist/6/logs/master-0.log\n"
            "      6  worker-0  RUNNING  localhost  4101  2,3   /runs/mnist/6/logs/worker-0.log\n");
  EXPECT_THAT(run.err, IsEmpty());
}

TEST_F(CliRenderingTest, JobsDescribeShowsTheErrorOfAFailedJob) {
  const CliRun run = Run({"jobs", "describe", "broken"});
  ASSERT_EQ(run.exit_code, kExitSuccess) << run.err;
  EXPECT_THAT(run.out,
              HasSubstr("State:       FAILED\n"
                        "Error:       3 trials failed; last: master-0 exited with code 1\n"));
  EXPECT_THAT(run.out, HasSubstr("Ended:       2024-05-01 11:59:50\n"));
  EXPECT_THAT(run.out, HasSubstr("Duration:    3m55s\n"));
  EXPECT_THAT(run.out, Not(HasSubstr("Running trials")));
}

TEST_F(CliRenderingTest, JobsDescribeAsJsonIsTheGetJobResponse) {
  const CliRun run = Run({"jobs", "describe", "mnist", "--format", "json"});
  ASSERT_EQ(run.exit_code, kExitSuccess) << run.err;
  v1::GetJobResponse parsed;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(run.out, &parsed).ok()) << run.out;
  EXPECT_TRUE(MessageDifferencer::Equals(parsed, CannedJob())) << parsed.DebugString();
}

TEST_F(CliRenderingTest, ServerErrorsPrintTheCodeNameAndExitOne) {
  const CliRun run = Run({"jobs", "describe", "nope"});
  EXPECT_EQ(run.exit_code, kExitFailure);
  EXPECT_EQ(run.err, "error: NOT_FOUND: job \"nope\" not found\n");
  EXPECT_THAT(run.out, IsEmpty());
}

TEST_F(CliRenderingTest, SlowAnswersHitTheDeadlineWithAClearMessage) {
  const CliRun run = Run({"jobs", "describe", "slow"}, absl::Milliseconds(300));
  EXPECT_EQ(run.exit_code, kExitFailure);
  EXPECT_THAT(run.err, HasSubstr("error: DEADLINE_EXCEEDED: the Vernier server at " +
                                 server_.address() + " did not answer within 300ms"));
}

TEST_F(CliRenderingTest, JobsListFollowsPageTokens) {
  const CliRun run = Run({"jobs", "list", "--page-size", "1"});
  ASSERT_EQ(run.exit_code, kExitSuccess) << run.err;
  EXPECT_EQ(run.out,
            "JOB_ID      STATE      TRIALS  OUTCOME                             CREATED      "
            "        DURATION\n"
            "first_job   SUCCEEDED   10/10  8 succeeded, 2 failed               2024-05-01 "
            "10:00:00     1h02m\n"
            "second_job  FAILED      10/10  4 succeeded, 10 failed (4 resumed)  2024-05-01 "
            "10:00:00     1h02m\n");
  const std::vector<v1::ListJobsRequest> requests = server_.job_page_requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].page_size(), 1);
  EXPECT_EQ(requests[0].page_token(), "");
  EXPECT_EQ(requests[1].page_token(), "page2");
}

TEST_F(CliRenderingTest, JobsListAsJsonIsOneDocumentWithEveryPage) {
  const CliRun run = Run({"jobs", "list", "--format", "json"});
  ASSERT_EQ(run.exit_code, kExitSuccess) << run.err;
  v1::ListJobsResponse parsed;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(run.out, &parsed).ok()) << run.out;
  ASSERT_EQ(parsed.jobs_size(), 2);
  EXPECT_EQ(parsed.jobs(1).job_id(), "second_job");
  EXPECT_TRUE(parsed.next_page_token().empty());
}

TEST_F(CliRenderingTest, JobsCancelPrintsTheNewState) {
  const CliRun run = Run({"jobs", "cancel", "mnist"});
  ASSERT_EQ(run.exit_code, kExitSuccess) << run.err;
  EXPECT_EQ(run.out, "Job mnist: CANCELLING\n");
}

TEST_F(CliRenderingTest, SubmitSendsTheJobAndPrintsAHint) {
  const std::string config =
      std::string(std::getenv("VERNIER_SOURCE_DIR") != nullptr ? std::getenv("VERNIER_SOURCE_DIR")
                                                               : ".") +
      "/examples/hptuning_config.yaml";
  const CliRun run = Run({"jobs", "submit", "training", "moons_001", "--config", config,
                          "--job-dir", "/tmp/vernier/moons_001", "--", "python3", "train.py"});
  ASSERT_EQ(run.exit_code, kExitSuccess) << run.err;
  EXPECT_EQ(run.out,
            "Submitted job moons_001 (state QUEUED).\n"
            "Follow it with: vernier jobs describe moons_001\n");
  const v1::Job submitted = server_.submitted();
  EXPECT_EQ(submitted.job_id(), "moons_001");
  EXPECT_EQ(submitted.job_dir(), "/tmp/vernier/moons_001");
  EXPECT_THAT(std::vector<std::string>(submitted.command().begin(), submitted.command().end()),
              ElementsAre("python3", "train.py"));
  EXPECT_EQ(submitted.training_input().hyperparameters().hyperparameter_metric_tag(), "accuracy");
}

TEST_F(CliRenderingTest, StreamLogsPrefixesTrialRoleAndIndex) {
  const CliRun run = Run({"jobs", "stream-logs", "mnist", "--follow"});
  ASSERT_EQ(run.exit_code, kExitSuccess) << run.err;
  EXPECT_EQ(run.out,
            "[trial 3 master-0] epoch=1 accuracy=0.5\n"
            "[trial 3 worker-1] ready\n"
            "[trial 4 master-0] epoch=1 accuracy=0.6\n"
            "[trial 4 ps-0 retry 2] resumed\n"
            "[trial 4 master-0 agent] 2026-11-26T04:00:00.000 info: trainer exited with 0\n");
  EXPECT_TRUE(server_.logs_request().follow());
  EXPECT_EQ(server_.logs_request().job_id(), "mnist");
}

TEST_F(CliRenderingTest, StreamLogsOfOneTrialAsJsonLines) {
  const CliRun run = Run({"jobs", "stream-logs", "mnist", "--trial", "3", "--format", "json"});
  ASSERT_EQ(run.exit_code, kExitSuccess) << run.err;
  EXPECT_EQ(server_.logs_request().trial_id(), 3);
  EXPECT_FALSE(server_.logs_request().follow());
  std::istringstream lines(run.out);
  std::vector<v1::LogLine> parsed;
  for (std::string line; std::getline(lines, line);) {
    v1::LogLine log_line;
    ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(line, &log_line).ok()) << line;
    parsed.push_back(log_line);
  }
  ASSERT_EQ(parsed.size(), 2u);
  EXPECT_EQ(parsed[0].text(), "epoch=1 accuracy=0.5");
  EXPECT_EQ(parsed[1].role(), "worker");
}

TEST_F(CliRenderingTest, LeaderboardRanksWithObjectiveParametersStepAndDuration) {
  const CliRun run = Run({"trials", "leaderboard", "mnist", "--top", "5"});
  ASSERT_EQ(run.exit_code, kExitSuccess) << run.err;
  EXPECT_EQ(
      run.out,
      "Study mnist, metrics: accuracy (MAXIMIZE)\n"
      "RANK  TRIAL  STATE      OBJECTIVE  PARAMETERS                         STEP  DURATION\n"
      "   1      3  SUCCEEDED       0.93  lr=0.01, layers=3, optimizer=adam   100     4m05s\n"
      "   2      5  ACTIVE           0.9  lr=0.05, layers=1, optimizer=sgd     40      3.2s\n");
  EXPECT_EQ(server_.optimal_request().study_name(), "mnist");
  EXPECT_EQ(server_.optimal_request().top(), 5);
}

TEST_F(CliRenderingTest, LeaderboardOfSeveralMetricsIsTheParetoFrontWithEveryMetric) {
  const CliRun run = Run({"trials", "leaderboard", "pareto"});
  ASSERT_EQ(run.exit_code, kExitSuccess) << run.err;
  EXPECT_EQ(run.out,
            "Study pareto, metrics: accuracy (MAXIMIZE), latency (MINIMIZE), memory (at most 8)\n"
            "The Pareto front: no other trial is as good on every objective and better on one.\n"
            "Trials that miss an outcome constraint rank below every trial that meets them all.\n"
            "RANK  TRIAL  STATE      accuracy  latency  memory  PARAMETERS  STEP  DURATION\n"
            "   1      4  SUCCEEDED      0.95       30       6  layers=4      10     1m00s\n"
            "   2      2  SUCCEEDED       0.9     12.5       3  layers=2      10     1m00s\n");
}

TEST_F(CliRenderingTest, JobsDescribeOfSeveralObjectivesShowsTheParetoFront) {
  const CliRun run = Run({"jobs", "describe", "pareto"});
  ASSERT_EQ(run.exit_code, kExitSuccess) << run.err;
  EXPECT_THAT(
      run.out,
      HasSubstr("Metrics:    accuracy (MAXIMIZE), latency (MINIMIZE), memory (at most 8)\n"));
  EXPECT_THAT(run.out, Not(HasSubstr("Best trial:")));
  EXPECT_THAT(run.out, HasSubstr("\nPareto front (2 trials):\n"
                                 "  TRIAL  accuracy  latency  memory  PARAMETERS\n"
                                 "      4      0.95       30       6  layers=4\n"
                                 "      2       0.9     12.5       3  layers=2\n"));
  EXPECT_EQ(server_.optimal_request().study_name(), "pareto");
  EXPECT_EQ(server_.optimal_request().top(), 0);
}

TEST_F(CliRenderingTest, LeaderboardDefaultsToTheTopTen) {
  ASSERT_EQ(Run({"trials", "leaderboard", "mnist"}).exit_code, kExitSuccess);
  EXPECT_EQ(server_.optimal_request().top(), 10);
}

TEST_F(CliRenderingTest, LeaderboardOfAnUnknownStudyIsNotFound) {
  const CliRun run = Run({"trials", "leaderboard", "ghost"});
  EXPECT_EQ(run.exit_code, kExitFailure);
  EXPECT_EQ(run.err, "error: NOT_FOUND: study \"ghost\" not found\n");
}

TEST_F(CliRenderingTest, LeaderboardAsJsonIsTheOptimalTrialsResponse) {
  const CliRun run = Run({"trials", "leaderboard", "mnist", "--format", "json"});
  ASSERT_EQ(run.exit_code, kExitSuccess) << run.err;
  v1::ListOptimalTrialsResponse parsed;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(run.out, &parsed).ok()) << run.out;
  ASSERT_EQ(parsed.trials_size(), 2);
  EXPECT_EQ(parsed.trials(0).id(), 3);
}

TEST_F(CliRenderingTest, TrialsListFiltersByStateFollowsPagesAndShowsReasons) {
  const CliRun run =
      Run({"trials", "list", "mnist", "--state", "active,SUCCEEDED", "--state", "stopped-early"});
  ASSERT_EQ(run.exit_code, kExitSuccess) << run.err;
  EXPECT_EQ(run.out,
            "TRIAL  STATE      OBJECTIVE  PARAMETERS                         STEP  DURATION  "
            "REASON\n"
            "    3  SUCCEEDED       0.93  lr=0.01, layers=3, optimizer=adam   100     4m05s\n"
            "    5  ACTIVE           0.9  lr=0.05, layers=1, optimizer=sgd     40      3.2s\n"
            "    7  FAILED             -  lr=0.1                                -         -  "
            "master-0 exited with code 1\n");
  const std::vector<v1::ListTrialsRequest> requests = server_.trial_page_requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_THAT(requests[0].states(),
              ElementsAre(v1::Trial::ACTIVE, v1::Trial::SUCCEEDED, v1::Trial::STOPPED_EARLY));
  EXPECT_EQ(requests[1].page_token(), "more");
}

TEST_F(CliRenderingTest, StudiesListShowsAlgorithmMetricsAndLimits) {
  const CliRun run = Run({"studies", "list"});
  ASSERT_EQ(run.exit_code, kExitSuccess) << run.err;
  EXPECT_EQ(run.out,
            "NAME    STATE      ALGORITHM                METRICS              MAX_TRIALS  "
            "CREATED\n"
            "mnist   ACTIVE     GAUSSIAN_PROCESS_BANDIT  accuracy (MAXIMIZE)          20  "
            "2024-05-01 11:00:00\n"
            "auto    ACTIVE     GAUSSIAN_PROCESS_BANDIT  accuracy (MAXIMIZE)          20  "
            "2024-05-01 11:00:00\n"
            "direct  COMPLETED  RANDOM_SEARCH            loss (MINIMIZE)       unlimited  "
            "2024-05-01 11:59:00\n");
}

TEST_F(CliRenderingTest, StudiesDescribeShowsTheSpecAndTrialCounts) {
  const CliRun run = Run({"studies", "describe", "mnist"});
  ASSERT_EQ(run.exit_code, kExitSuccess) << run.err;
  EXPECT_EQ(run.out,
            "Study:           mnist\n"
            "State:           ACTIVE\n"
            "Created:         2024-05-01 11:00:00\n"
            "Algorithm:       GAUSSIAN_PROCESS_BANDIT (Gaussian-process Bayesian optimisation "
            "after a quasi-random start)\n"
            "Seed:            42\n"
            "Metrics:         accuracy (MAXIMIZE)\n"
            "Limits:          max trials 20, max parallel 2, max failed unlimited\n"
            "Early stopping:  MEDIAN_STOPPING, from step 5, after 3 completed trials\n"
            "Trials:          3 (0 requested, 1 active, 1 succeeded, 1 failed, 0 infeasible, 0 "
            "stopped early)\n"
            "\n"
            "Parameters:\n"
            "  NAME       TYPE         VALUES         SCALE\n"
            "  lr         DOUBLE       [0.0001, 0.1]  UNIT_LOG_SCALE\n"
            "  layers     INTEGER      [1, 5]         NONE (linear)\n"
            "  optimizer  CATEGORICAL  {adam, sgd}    -\n"
            "  batch      DISCRETE     {16, 32}       UNIT_LINEAR_SCALE\n");
}

TEST_F(CliRenderingTest, StudiesDescribeAsJsonHoldsTheStudyAndTheCounts) {
  const CliRun run = Run({"studies", "describe", "mnist", "--format", "json"});
  ASSERT_EQ(run.exit_code, kExitSuccess) << run.err;
  google::protobuf::Struct document;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(run.out, &document).ok()) << run.out;
  const auto& fields = document.fields();
  ASSERT_TRUE(fields.contains("study"));
  ASSERT_TRUE(fields.contains("trialCounts"));
  EXPECT_EQ(fields.at("study").struct_value().fields().at("name").string_value(), "mnist");
  EXPECT_EQ(fields.at("trialCounts").struct_value().fields().at("failed").number_value(), 1);
}

TEST_F(CliRenderingTest, StudiesDeleteNamesTheStudy) {
  const CliRun run = Run({"studies", "delete", "mnist"});
  ASSERT_EQ(run.exit_code, kExitSuccess) << run.err;
  EXPECT_EQ(run.out, "Deleted study mnist.\n");
  EXPECT_THAT(server_.deleted(), ElementsAre("mnist"));
}

}  // namespace
}  // namespace vernier::cli
