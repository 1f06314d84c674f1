#include "tests/support/job_client.h"

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <thread>

#include "google/protobuf/util/json_util.h"
#include "tuner/storage/trial_states.h"
#include "tests/support/subprocess.h"
#include "vernier/v1/job_service.grpc.pb.h"
#include "vernier/v1/study_service.grpc.pb.h"

namespace vernier::testing {

std::vector<std::string> Cli(const ServerProcess& server, std::vector<std::string> args) {
  std::vector<std::string> argv = {BinaryPath("vernier")};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.push_back("--server");
  argv.push_back(server.address());
  return argv;
}

std::vector<std::string> Submit(const ServerProcess& server, const std::string& job_id,
                                const std::string& config, const std::string& job_dir,
                                const std::vector<std::string>& command) {
  std::vector<std::string> argv =
      Cli(server, {"jobs", "submit", "training", job_id, "--config", config, "--job-dir", job_dir});
  argv.push_back("--");
  argv.insert(argv.end(), command.begin(), command.end());
  return argv;
}

v1::GetJobResponse GetJob(const ServerProcess& server, const std::string& job_id) {
  auto stub = server.JobStub();
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  v1::GetJobRequest request;
  request.set_job_id(job_id);
  v1::GetJobResponse response;
  grpc::Status status = stub->GetJob(&context, request, &response);
  if (!status.ok()) throw std::runtime_error("GetJob: " + status.error_message());
  return response;
}

v1::GetJobResponse WaitForJob(const ServerProcess& server, const std::string& job_id,
                              const std::function<bool(const v1::GetJobResponse&)>& done,
                              std::chrono::seconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  v1::GetJobResponse job;
  while (std::chrono::steady_clock::now() < deadline) {
    job = GetJob(server, job_id);
    if (done(job)) return job;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  ADD_FAILURE() << "job " << job_id << " did not get there in time: " << job.DebugString()
                << "\nserver log:\n"
                << server.log();
  return job;
}

bool Ended(const v1::GetJobResponse& job) { return tuner::HasEnded(job.job().state()); }

std::vector<v1::Trial> ListTrials(const ServerProcess& server, const std::string& study) {
  auto stub = server.StudyStub();
  grpc::ClientContext context;
  v1::ListTrialsRequest request;
  request.set_study_name(study);
  request.set_include_measurements(true);
  v1::ListTrialsResponse response;
  grpc::Status status = stub->ListTrials(&context, request, &response);
  if (!status.ok()) throw std::runtime_error("ListTrials: " + status.error_message());
  return {response.trials().begin(), response.trials().end()};
}

void WriteFile(const std::string& path, const std::string& text) {
  std::error_code error;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), error);
  std::ofstream(path) << text;
}

std::string SmallConfig(int max_trials, int parallel, int max_failed,
                        const std::string& extra_hyperparameters) {
  return "trainingInput:\n"
         "  scaleTier: BASIC\n"
         "  hyperparameters:\n"
         "    goal: MAXIMIZE\n"
         "    hyperparameterMetricTag: accuracy\n"
         "    maxTrials: " +
         std::to_string(max_trials) +
         "\n"
         "    maxParallelTrials: " +
         std::to_string(parallel) +
         "\n"
         "    maxFailedTrials: " +
         std::to_string(max_failed) +
         "\n"
         "    algorithm: RANDOM_SEARCH\n" +
         extra_hyperparameters +
         "    params:\n"
         "      - parameterName: learning_rate\n"
         "        type: DOUBLE\n"
         "        minValue: 0.001\n"
         "        maxValue: 0.5\n"
         "        scaleType: UNIT_LOG_SCALE\n";
}

google::protobuf::Struct ParseJson(const std::string& json) {
  google::protobuf::Struct parsed;
  EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(json, &parsed).ok()) << json;
  return parsed;
}

std::string StringField(const google::protobuf::Struct& object, const std::string& name) {
  auto it = object.fields().find(name);
  return it == object.fields().end() ? "<missing>" : it->second.string_value();
}

}  // namespace vernier::testing
