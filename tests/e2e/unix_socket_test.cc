// `vernier serve --host unix:PATH` (issue 35): gRPC on the Unix socket, the
// HTTP API and dashboard on loopback at --http-port (browsers cannot dial a
// socket), without --no-http. Clients over the socket find the admin token
// the server wrote for that address, and a job's agents report over it.
#include <gmock/gmock.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "tests/support/job_client.h"
#include "tests/support/server_process.h"
#include "tests/support/subprocess.h"
#include "tests/support/token_channel.h"
#include "tests/support/tuning_job.h"
#include "vernier/v1/auth_service.grpc.pb.h"
#include "vernier/v1/job_service.grpc.pb.h"

namespace vernier::testing {
namespace {

using ::testing::HasSubstr;

TEST(UnixSocketTest, ServesGrpcOnTheSocketAndHttpOnLoopback) {
  TempDir dir;
  const std::string socket = absl::StrCat("unix:", dir.path(), "/vernier.sock");
  ServerProcess server(dir.path() + "/data", 0, {"--host", socket});
  server.Start();
  ASSERT_EQ(server.address(), socket);
  const std::string log = server.log();
  EXPECT_THAT(log, HasSubstr("vernier serve listening on " + socket));

  // gRPC over the socket, with the token the server wrote for its address.
  const auto auth =
      v1::AuthService::NewStub(ChannelWithLocalToken(socket, grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  v1::WhoAmIResponse me;
  const grpc::Status status = auth->WhoAmI(&context, v1::WhoAmIRequest(), &me);
  ASSERT_TRUE(status.ok()) << status.error_message() << log;
  EXPECT_EQ(me.role(), v1::ADMIN);

  // HTTP on loopback, tokens required as ever.
  std::smatch match;
  ASSERT_TRUE(std::regex_search(
      log, match, std::regex("dashboard and HTTP API at (http://127\\.0\\.0\\.1:\\d+/)")))
      << log;
  const std::string url = absl::StrCat(match[1].str(), "v1/whoami");
  const std::string token =
      std::string(absl::StripAsciiWhitespace(ReadFile(server.data_dir() + "/admin.token")));
  const CommandResult refused =
      RunCommand({"curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}", url});
  EXPECT_EQ(refused.out, "401") << refused.err;
  const CommandResult answered =
      RunCommand({"curl", "-sS", "-H", "Authorization: Bearer " + token, url});
  EXPECT_EQ(answered.exit_code, 0) << answered.err;
  EXPECT_THAT(answered.out, HasSubstr(me.user()));

  // A job's agents report over the socket.
  grpc::ClientContext submit_context;
  v1::SubmitTrainingJobRequest request;
  *request.mutable_job() = TuningJob("over_socket", dir.path() + "/runs", 1, 1);
  request.mutable_job()->clear_command();
  for (const char* word : {"/bin/sh", "-c", "echo accuracy=0.5"}) {
    request.mutable_job()->add_command(word);
  }
  v1::Job submitted;
  const grpc::Status submitted_status =
      server.JobStub()->SubmitTrainingJob(&submit_context, request, &submitted);
  ASSERT_TRUE(submitted_status.ok()) << submitted_status.error_message();
  const v1::GetJobResponse ended = WaitForJob(server, "over_socket", Ended);
  EXPECT_EQ(ended.job().state(), v1::Job::SUCCEEDED) << ended.DebugString() << server.log();
  EXPECT_EQ(ended.trial_counts().succeeded(), 1);
  server.Stop();
}

}  // namespace
}  // namespace vernier::testing
