// Issue 19 parts 3 and 4 through the real binaries: tokens (zero setup,
// create, list, revoke, expiry, token files), sharing and owners, and the
// error of each bad input.

#include <gmock/gmock.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "tests/support/job_client.h"
#include "tests/support/server_process.h"
#include "tests/support/subprocess.h"
#include "tests/support/tuning_job.h"
#include "vernier/v1/job_service.grpc.pb.h"
#include "vernier/v1/study_service.grpc.pb.h"

namespace vernier::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class ApiTokensTest : public ::testing::Test {
 protected:
  void SetUp() override { server_.Start(); }

  // `vernier ARGS --server ADDRESS` with `token` in $VERNIER_TOKEN (none:
  // the token file the server wrote for this user).
  CommandResult Run(std::vector<std::string> args, const std::string& token = "") {
    std::map<std::string, std::string> env;
    if (!token.empty()) env["VERNIER_TOKEN"] = token;
    return RunCommand(Cli(server_, std::move(args)), std::chrono::seconds(60), env);
  }

  std::string Create(const std::string& user, const std::string& role,
                     const std::string& expires = "0") {
    const CommandResult created =
        Run({"tokens", "create", "--user", user, "--role", role, "--expires", expires});
    EXPECT_EQ(created.exit_code, 0) << created.err;
    return FirstLine(created.out);
  }

  TempDir dir_;
  ServerProcess server_{dir_.path() + "/data"};
};

TEST_F(ApiTokensTest, TheServerWritesItsUsersAdminTokenMode0600AndKeepsItAcrossRestarts) {
  const std::string path = dir_.path() + "/data/admin.token";
  struct stat info = {};
  ASSERT_EQ(stat(path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
  const std::string token = ReadFile(path);
  EXPECT_THAT(token, HasSubstr("vnr_"));
  // The CLI needs no flag on this machine.
  EXPECT_EQ(Run({"jobs", "list"}).exit_code, 0);
  server_.Stop();
  server_.Start();
  EXPECT_EQ(ReadFile(path), token);
  const CommandResult listed = Run({"tokens", "list"});
  EXPECT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_THAT(listed.out, HasSubstr("admin"));
  EXPECT_THAT(listed.out, Not(HasSubstr("vnr_"))) << "tokens list shows no token";
}

TEST_F(ApiTokensTest, RevokedAndExpiredTokensAreUnauthenticated) {
  const std::string token = Create("vic", "viewer");
  EXPECT_EQ(Run({"studies", "list"}, token).exit_code, 0);
  const CommandResult listed = Run({"tokens", "list", "--format", "json"});
  ASSERT_EQ(listed.exit_code, 0);
  const std::string marker = "\"user\": \"vic\"";
  ASSERT_THAT(listed.out, HasSubstr(marker));
  // The id is the first 12 hex digits of the token's SHA-256; read it back.
  const size_t at = listed.out.rfind("\"id\": \"", listed.out.find(marker));
  const std::string id = listed.out.substr(at + 7, 12);
  EXPECT_EQ(Run({"tokens", "revoke", id}).exit_code, 0);
  const CommandResult revoked = Run({"studies", "list"}, token);
  EXPECT_EQ(revoked.exit_code, 1);
  EXPECT_THAT(revoked.err, HasSubstr("UNAUTHENTICATED"));
  EXPECT_THAT(revoked.err, HasSubstr("of vic was revoked"));

  const std::string brief = Create("eve", "viewer", "1s");
  CommandResult expired;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  do {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    expired = Run({"studies", "list"}, brief);
  } while (expired.exit_code == 0 && std::chrono::steady_clock::now() < deadline);
  EXPECT_THAT(expired.err, HasSubstr("UNAUTHENTICATED"));
  EXPECT_THAT(expired.err, HasSubstr("expired at"));

  const CommandResult unknown = Run({"tokens", "revoke", "000000000000"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_THAT(unknown.err, HasSubstr("NOT_FOUND: no API token with id \"000000000000\""));
}

TEST_F(ApiTokensTest, BadTokensAndTokenFilesAreRefusedWithTheirReason) {
  const CommandResult bad = Run({"jobs", "list"}, "vnr_nonsense");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_THAT(bad.err, HasSubstr("UNAUTHENTICATED: /vernier.v1.JobService/ListJobs: the bearer "
                                 "token is not one this server issued"));

  // Not "Bearer ...", and no token at all.
  auto stub = v1::JobService::NewStub(
      grpc::CreateChannel(server_.address(), grpc::InsecureChannelCredentials()));
  for (const char* value : {"Basic dXNlcjpwYXNz", ""}) {
    grpc::ClientContext context;
    if (*value != '\0') context.AddMetadata("authorization", value);
    v1::ListJobsResponse response;
    const grpc::Status status = stub->ListJobs(&context, {}, &response);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED) << value;
    EXPECT_THAT(status.error_message(),
                HasSubstr(*value != '\0' ? "is not \"Bearer TOKEN\"" : "no token"));
  }

  const std::string file = dir_.path() + "/token";
  std::ofstream(file) << Create("vic", "viewer") << "\n";
  chmod(file.c_str(), 0644);
  const CommandResult open_file = Run({"jobs", "list", "--token-file", file});
  EXPECT_EQ(open_file.exit_code, 1);
  EXPECT_THAT(open_file.err, HasSubstr("others may read it (mode 0644)"));
  EXPECT_THAT(open_file.err, HasSubstr("chmod 600 " + file));
  chmod(file.c_str(), 0600);
  EXPECT_EQ(Run({"jobs", "list", "--token-file", file}).exit_code, 0);
  const CommandResult missing = Run({"jobs", "list", "--token-file", file + ".none"});
  EXPECT_THAT(missing.err, HasSubstr("token file " + file + ".none: no such file"));
}

TEST_F(ApiTokensTest, TokenCommandsCheckTheirArgumentsAndNeedAnAdmin) {
  const CommandResult role = Run({"tokens", "create", "--user", "u", "--role", "root"});
  EXPECT_EQ(role.exit_code, 1);
  EXPECT_THAT(role.err, HasSubstr("--role: unknown role \"root\"; use viewer, developer or admin"));
  const CommandResult expires =
      Run({"tokens", "create", "--user", "u", "--role", "viewer", "--expires", "soon"});
  EXPECT_THAT(expires.err, HasSubstr("--expires \"soon\": give a positive whole number"));
  const CommandResult user = Run({"tokens", "create", "--user", "a b", "--role", "viewer"});
  EXPECT_THAT(user.err, HasSubstr("INVALID_ARGUMENT: user \"a b\": only letters"));
  const std::string developer = Create("dora", "developer");
  const CommandResult denied =
      Run({"tokens", "create", "--user", "x", "--role", "admin"}, developer);
  EXPECT_EQ(denied.exit_code, 1);
  EXPECT_THAT(denied.err, HasSubstr("PERMISSION_DENIED: /vernier.v1.AuthService/CreateToken "
                                    "needs the admin role; dora (developer) has developer"));
}

TEST_F(ApiTokensTest, OwnersShareAndOthersMayNotChange) {
  const std::string dora = Create("dora", "developer");
  const std::string dan = Create("dan", "developer");
  const std::string config = dir_.path() + "/config.yaml";
  WriteFile(config, SmallConfig(1, 1, 1));
  const CommandResult submitted = RunCommand(
      Submit(server_, "shared_job", config, dir_.path() + "/job", {"/bin/sh", "-c", "sleep 300"}),
      std::chrono::seconds(60), {{"VERNIER_TOKEN", dora}});
  ASSERT_EQ(submitted.exit_code, 0) << submitted.err;
  const CommandResult described = Run({"jobs", "describe", "shared_job"}, dan);
  EXPECT_THAT(described.out, HasSubstr("Owner:"));
  EXPECT_THAT(described.out, HasSubstr("dora"));

  const CommandResult refused = Run({"jobs", "cancel", "shared_job"}, dan);
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_THAT(refused.err, HasSubstr("PERMISSION_DENIED: /vernier.v1.JobService/CancelJob: dan "
                                     "(developer) may not change job \"shared_job\" (owner dora)"));
  const CommandResult not_owner =
      Run({"jobs", "share", "shared_job", "--user", "dan", "--role", "developer"}, dan);
  EXPECT_THAT(not_owner.err, HasSubstr("PERMISSION_DENIED"));
  const CommandResult as_admin =
      Run({"jobs", "share", "shared_job", "--user", "dan", "--role", "admin"}, dora);
  EXPECT_THAT(as_admin.err, HasSubstr("--role admin: a study or job is shared as viewer or "
                                      "developer"));
  const CommandResult missing =
      Run({"studies", "share", "no_such", "--user", "dan", "--role", "viewer"}, dora);
  EXPECT_THAT(missing.err, HasSubstr("NOT_FOUND"));

  const CommandResult shared =
      Run({"jobs", "share", "shared_job", "--user", "dan", "--role", "developer"}, dora);
  EXPECT_EQ(shared.exit_code, 0) << shared.err;
  EXPECT_THAT(shared.out, HasSubstr("dan (developer)"));
  // The job's grant covers its study.
  const CommandResult study = Run({"studies", "describe", "shared_job"}, dan);
  EXPECT_THAT(study.out, HasSubstr("dan (developer)"));
  const CommandResult cancelled = Run({"jobs", "cancel", "shared_job"}, dan);
  EXPECT_EQ(cancelled.exit_code, 0) << cancelled.err;
}

}  // namespace
}  // namespace vernier::testing
