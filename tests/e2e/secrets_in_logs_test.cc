// Issue 19 part 8: a real job run with API tokens, a secret in the trainer's
// command line and one in the server's environment; afterwards no log of
// the run (the server's, the agents' and trials' files under the data
// directory, every CLI command's output) holds a token or a secret value.

#include <gmock/gmock.h>
#include <grpcpp/client_context.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_join.h"
#include "tests/support/job_client.h"
#include "tests/support/server_process.h"
#include "tests/support/subprocess.h"

namespace vernier::testing {
namespace {

using ::testing::HasSubstr;

constexpr char kCommandSecret[] = "hf-command-secret-777";
constexpr char kFlagSecret[] = "apikey-secret-888";
constexpr char kEnvironmentSecret[] = "sk-env-secret-4242";

TEST(SecretsInLogsTest, NoTokenOrSecretValueInAnyLogOfARealJob) {
  // The server has a secret-looking variable of its own (which trials do
  // not get: docs/jobs.md, "The trial's environment").
  ASSERT_EQ(setenv("VERNIER_TEST_SECRET_KEY", kEnvironmentSecret, 1), 0);
  TempDir dir;
  ServerProcess server(dir.path() + "/data", 0, {"--audit-data-access"});
  server.Start();
  std::vector<std::string> outputs;
  std::map<std::string, std::string> env;
  const auto run = [&](std::vector<std::string> argv) {
    const CommandResult result = RunCommand(argv, std::chrono::seconds(120), env);
    outputs.push_back(result.out);
    outputs.push_back(result.err);
    return result;
  };
  // `tokens create` shows the new token once, by design: not a log.
  const CommandResult created =
      RunCommand(Cli(server, {"tokens", "create", "--user", "dora", "--role", "developer"}),
                 std::chrono::seconds(60));
  ASSERT_EQ(created.exit_code, 0) << created.err;
  const std::string dora = FirstLine(created.out);
  const std::string admin(absl::StripAsciiWhitespace(ReadFile(server.data_dir() + "/admin.token")));
  env["VERNIER_TOKEN"] = dora;

  const std::string config = dir.path() + "/hp.yaml";
  WriteFile(config, SmallConfig(2, 1, 0));
  const std::vector<std::string> command = {"env",
                                            std::string("HF_TOKEN=") + kCommandSecret,
                                            "sh",
                                            "-c",
                                            "echo accuracy=0.5",
                                            "trainer",
                                            "--api-key",
                                            kFlagSecret};
  std::vector<std::string> dry_run =
      Submit(server, "secret_job", config, dir.path() + "/jobs", command);
  dry_run.insert(dry_run.begin() + 4, "--dry-run");
  const CommandResult previewed = run(dry_run);
  EXPECT_EQ(previewed.exit_code, 0) << previewed.err;
  const CommandResult submitted =
      run(Submit(server, "secret_job", config, dir.path() + "/jobs", command));
  ASSERT_EQ(submitted.exit_code, 0) << submitted.err;
  const v1::GetJobResponse ended = WaitForJob(server, "secret_job", Ended);
  EXPECT_EQ(ended.job().state(), v1::Job::SUCCEEDED) << server.log();

  const CommandResult described = run(Cli(server, {"jobs", "describe", "secret_job"}));
  EXPECT_EQ(described.exit_code, 0) << described.err;
  EXPECT_THAT(described.out, HasSubstr("HF_TOKEN=[redacted]"));
  run(Cli(server, {"jobs", "describe", "secret_job", "--format", "json"}));
  run(Cli(server, {"jobs", "stream-logs", "secret_job"}));
  run(Cli(server, {"jobs", "list"}));
  env.clear();  // the admin's own token file
  run(Cli(server, {"audit", "list", "--format", "json"}));
  run(Cli(server, {"tokens", "list"}));
  server.Stop();
  outputs.push_back(server.log());

  // Every file under the data and job directories but the database and the
  // token files (where tokens and the job's command are kept, not logged).
  int files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir.path())) {
    if (!entry.is_regular_file()) continue;
    const std::string name = entry.path().filename().string();
    if (name.find(".token") != std::string::npos || name.starts_with("vernier.db") ||
        name == "hp.yaml") {
      continue;
    }
    ++files;
    outputs.push_back(ReadFile(entry.path().string()));
    const std::string& text = outputs.back();
    for (const std::string& secret : {admin, dora, std::string(kCommandSecret),
                                      std::string(kFlagSecret), std::string(kEnvironmentSecret)}) {
      EXPECT_EQ(text.find(secret), std::string::npos) << entry.path() << " holds " << secret;
    }
  }
  EXPECT_GT(files, 2) << "the run left its logs";
  for (size_t i = 0; i < outputs.size(); ++i) {
    for (const std::string& secret : {admin, dora, std::string(kCommandSecret),
                                      std::string(kFlagSecret), std::string(kEnvironmentSecret)}) {
      EXPECT_EQ(outputs[i].find(secret), std::string::npos)
          << "output " << i << " holds " << secret << ":\n"
          << outputs[i];
    }
  }
  unsetenv("VERNIER_TEST_SECRET_KEY");
}

// The job's command line (and trainingInput.args) as the holder of `token`
// reads it: over gRPC GetJob, ListJobs and the HTTP API's GET.
std::vector<std::string> CommandsAsSeenBy(const ServerProcess& server, const std::string& token,
                                          const std::string& job_id) {
  std::vector<std::string> seen;
  const auto job_stub = server.JobStub();
  {
    grpc::ClientContext context;
    context.AddMetadata("authorization", "Bearer " + token);
    v1::GetJobRequest request;
    request.set_job_id(job_id);
    v1::GetJobResponse response;
    const grpc::Status status = job_stub->GetJob(&context, request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    seen.push_back(absl::StrJoin(response.job().command(), " ") + " | " +
                   absl::StrJoin(response.job().training_input().args(), " "));
  }
  {
    grpc::ClientContext context;
    context.AddMetadata("authorization", "Bearer " + token);
    v1::ListJobsResponse response;
    const grpc::Status status = job_stub->ListJobs(&context, v1::ListJobsRequest(), &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    EXPECT_EQ(response.jobs_size(), 1);
    for (const v1::Job& job : response.jobs()) {
      seen.push_back(absl::StrJoin(job.command(), " ") + " | " +
                     absl::StrJoin(job.training_input().args(), " "));
    }
  }
  std::smatch url;
  const std::string log = server.log();
  EXPECT_TRUE(std::regex_search(log, url, std::regex("HTTP API at (http://\\S+/)"))) << log;
  const CommandResult http = RunCommand({"curl", "-sS", "-H", "Authorization: Bearer " + token,
                                         url[1].str() + "v1/projects/-/jobs/" + job_id},
                                        std::chrono::seconds(30));
  EXPECT_EQ(http.exit_code, 0) << http.err;
  seen.push_back(http.out);
  return seen;
}

TEST(SecretsInLogsTest, ACommandLinesSecretsAreShownToItsOwnerAndAdminsOnly) {
  TempDir dir;
  ServerProcess server(dir.path() + "/data");
  server.Start();
  std::map<std::string, std::string> tokens;
  for (const auto& [user, role] : std::vector<std::pair<std::string, std::string>>{
           {"dora", "developer"}, {"eve", "developer"}, {"vic", "viewer"}}) {
    const CommandResult created =
        RunCommand(Cli(server, {"tokens", "create", "--user", user, "--role", role}),
                   std::chrono::seconds(60));
    ASSERT_EQ(created.exit_code, 0) << created.err;
    tokens[user] = FirstLine(created.out);
  }
  tokens["admin"] =
      std::string(absl::StripAsciiWhitespace(ReadFile(server.data_dir() + "/admin.token")));

  const std::string config = dir.path() + "/hp.yaml";
  WriteFile(config, SmallConfig(1, 1, 0, "") + "  args: [--db-password, args-secret-999]\n");
  const std::vector<std::string> command = {
      "sh", "-c", "echo accuracy=0.5", "trainer", "--api-key", kFlagSecret, "--lr", "0.1"};
  const CommandResult submitted =
      RunCommand(Submit(server, "secret_job", config, dir.path() + "/jobs", command),
                 std::chrono::seconds(60), {{"VERNIER_TOKEN", tokens["dora"]}});
  ASSERT_EQ(submitted.exit_code, 0) << submitted.err << submitted.out;

  for (const std::string user : {"eve", "vic"}) {
    for (const std::string& seen : CommandsAsSeenBy(server, tokens[user], "secret_job")) {
      EXPECT_EQ(seen.find(kFlagSecret), std::string::npos) << user << " sees " << seen;
      EXPECT_EQ(seen.find("args-secret-999"), std::string::npos) << user << " sees " << seen;
      EXPECT_THAT(seen, HasSubstr("[redacted]")) << user;
      EXPECT_THAT(seen, HasSubstr("--lr")) << user;
    }
  }
  for (const std::string user : {"dora", "admin"}) {
    for (const std::string& seen : CommandsAsSeenBy(server, tokens[user], "secret_job")) {
      EXPECT_THAT(seen, HasSubstr(kFlagSecret)) << user;
      EXPECT_THAT(seen, HasSubstr("args-secret-999")) << user;
    }
  }
  // Ended before the server stops: its agent would keep retrying a stopped
  // server for an hour.
  WaitForJob(server, "secret_job", Ended);
}

}  // namespace
}  // namespace vernier::testing
