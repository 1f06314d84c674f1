#ifndef VERNIER_TESTS_SUPPORT_JOB_CLIENT_H_
#define VERNIER_TESTS_SUPPORT_JOB_CLIENT_H_

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "google/protobuf/struct.pb.h"
#include "tests/support/server_process.h"
#include "vernier/v1/job_service.pb.h"
#include "vernier/v1/study.pb.h"

namespace vernier::testing {

// What end-to-end tests do with a running server: CLI command lines, and
// job and trial reads over gRPC.

// `vernier ARGS --server ADDRESS`.
std::vector<std::string> Cli(const ServerProcess& server, std::vector<std::string> args);
// `vernier jobs submit training JOB_ID --config CONFIG --job-dir JOB_DIR -- COMMAND`.
std::vector<std::string> Submit(const ServerProcess& server, const std::string& job_id,
                                const std::string& config, const std::string& job_dir,
                                const std::vector<std::string>& command);
// Throws std::runtime_error when the call fails.
v1::GetJobResponse GetJob(const ServerProcess& server, const std::string& job_id);
// Polls the job until `done` holds; fails the test with the job and the
// server log after `timeout`.
v1::GetJobResponse WaitForJob(const ServerProcess& server, const std::string& job_id,
                              const std::function<bool(const v1::GetJobResponse&)>& done,
                              std::chrono::seconds timeout = std::chrono::seconds(240));
// SUCCEEDED, FAILED or CANCELLED.
bool Ended(const v1::GetJobResponse& job);
// Every trial of the study, with its measurements.
std::vector<v1::Trial> ListTrials(const ServerProcess& server, const std::string& study);
// Writes `text` to `path`, making the folders above it.
void WriteFile(const std::string& path, const std::string& text);
// Fails the test when `json` is not a JSON object.
google::protobuf::Struct ParseJson(const std::string& json);
// The string field `name` of `object`, or "<missing>".
std::string StringField(const google::protobuf::Struct& object, const std::string& name);
// A RANDOM_SEARCH job over one learning_rate that maximizes `accuracy`;
// `extra_hyperparameters` are lines (indented four columns) added to the
// hyperparameters block before its params.
std::string SmallConfig(int max_trials, int parallel, int max_failed,
                        const std::string& extra_hyperparameters = "");

}  // namespace vernier::testing

#endif  // VERNIER_TESTS_SUPPORT_JOB_CLIENT_H_
