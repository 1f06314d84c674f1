// End to end: `vernier serve` with TLS from scripts/make-certs.sh, the real
// CLI and the agents of a real job; plaintext off loopback refused unless
// --insecure.
#include <gmock/gmock.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "tests/support/job_client.h"
#include "tests/support/non_loopback_address.h"
#include "tests/support/server_process.h"
#include "tests/support/subprocess.h"
#include "tests/support/test_certificates.h"
#include "tests/support/token_channel.h"

namespace vernier::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// TLS client credentials trusting `ca` (with a client certificate when given).
std::shared_ptr<grpc::ChannelCredentials> Credentials(const TestCertificates& certificates,
                                                      bool client_certificate = false) {
  grpc::SslCredentialsOptions ssl;
  ssl.pem_root_certs = certificates.Read("ca.pem");
  if (client_certificate) {
    ssl.pem_cert_chain = certificates.Read("client.pem");
    ssl.pem_private_key = certificates.Read("client.key");
  }
  return grpc::SslCredentials(ssl);
}

// Waits until the server's log has `text` (at most 60 s).
bool WaitForLog(const ServerProcess& server, const std::string& text) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (server.log().find(text) == std::string::npos) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

// ListStudies over `channel`.
grpc::Status ListStudies(const std::shared_ptr<grpc::Channel>& channel) {
  auto stub = v1::StudyService::NewStub(channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  v1::ListStudiesRequest request;
  v1::ListStudiesResponse response;
  return stub->ListStudies(&context, request, &response);
}

class TlsTest : public ::testing::Test {
 protected:
  std::vector<std::string> TlsFlags(bool mutual) const {
    std::vector<std::string> flags = {"--tls-cert", certs_.Path("server.pem"), "--tls-key",
                                      certs_.Path("server.key"), "--tls-ca", certs_.Path("ca.pem")};
    if (mutual) {
      flags.insert(flags.end(), {"--tls-client-ca", certs_.Path("ca.pem"), "--tls-agent-cert",
                                 certs_.Path("agent.pem"), "--tls-agent-key",
                                 certs_.Path("agent.key")});
    }
    return flags;
  }
  // `vernier serve` run to its end (it should refuse to start).
  CommandResult ServeOnce(std::vector<std::string> flags) {
    std::vector<std::string> argv = {BinaryPath("vernier"), "serve", "--port", "0", "--data-dir",
                                     dir_.path() + "/refused"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    return RunCommand(argv, std::chrono::seconds(30));
  }

  TempDir dir_;
  TestCertificates certs_{{}, "alice"};
  TestCertificates other_{{}, "mallory"};
};

TEST_F(TlsTest, TheCliTalksTlsWithTheCaAndFailsClearlyWithoutIt) {
  ServerProcess server(dir_.path() + "/data", 0, TlsFlags(false));
  server.Start();
  EXPECT_THAT(server.log(), HasSubstr(", TLS)"));

  const CommandResult with_ca =
      RunCommand(Cli(server, {"studies", "list", "--tls-ca", certs_.Path("ca.pem")}));
  EXPECT_EQ(with_ca.exit_code, 0) << with_ca.err;
  EXPECT_THAT(with_ca.out, HasSubstr("No studies."));
  const CommandResult from_environment = RunCommand(Cli(server, {"jobs", "list"}),
                                                    std::chrono::seconds(60),
                                                    {{"VERNIER_TLS_CA", certs_.Path("ca.pem")}});
  EXPECT_EQ(from_environment.exit_code, 0) << from_environment.err;

  const CommandResult plaintext = RunCommand(Cli(server, {"studies", "list"}));
  EXPECT_EQ(plaintext.exit_code, 1);
  EXPECT_THAT(plaintext.err, HasSubstr("error: UNAVAILABLE: cannot reach the Vernier server at " +
                                       server.address()));
  EXPECT_THAT(plaintext.err, HasSubstr("If it serves TLS, pass --tls-ca CA.pem"));

  const CommandResult wrong_ca =
      RunCommand(Cli(server, {"studies", "list", "--tls-ca", other_.Path("ca.pem")}));
  EXPECT_EQ(wrong_ca.exit_code, 1);
  EXPECT_THAT(wrong_ca.err, HasSubstr("UNAVAILABLE: cannot reach the Vernier server"));
  EXPECT_THAT(wrong_ca.err, HasSubstr("does the CA in --tls-ca sign its certificate"));

  // A plaintext client's failed handshakes leave the server serving.
  EXPECT_TRUE(ListStudies(ChannelWithLocalToken(server.address(), Credentials(certs_))).ok());
}

TEST_F(TlsTest, MutualTlsRefusesAClientWithoutACertificate) {
  ServerProcess server(dir_.path() + "/data", 0, TlsFlags(true));
  server.Start();
  EXPECT_THAT(server.log(), HasSubstr("mutual TLS: clients need a certificate"));

  const CommandResult without_certificate =
      RunCommand(Cli(server, {"studies", "list", "--tls-ca", certs_.Path("ca.pem")}));
  EXPECT_EQ(without_certificate.exit_code, 1);
  EXPECT_THAT(without_certificate.err, HasSubstr("UNAVAILABLE: cannot reach the Vernier server"));
  EXPECT_THAT(without_certificate.err, HasSubstr("does it accept --tls-cert"));

  const CommandResult foreign_certificate = RunCommand(
      Cli(server, {"studies", "list", "--tls-ca", certs_.Path("ca.pem"), "--tls-cert",
                   other_.Path("client.pem"), "--tls-key", other_.Path("client.key")}));
  EXPECT_EQ(foreign_certificate.exit_code, 1);

  const CommandResult with_certificate =
      RunCommand(Cli(server, {"studies", "list"}), std::chrono::seconds(60),
                 {{"VERNIER_TLS_CA", certs_.Path("ca.pem")},
                  {"VERNIER_TLS_CERT", certs_.Path("client.pem")},
                  {"VERNIER_TLS_KEY", certs_.Path("client.key")}});
  EXPECT_EQ(with_certificate.exit_code, 0) << with_certificate.err;
}

TEST_F(TlsTest, TheAgentsOfARealJobReportOverMutualTls) {
  ServerProcess server(dir_.path() + "/data", 0, TlsFlags(true));
  server.Start();
  server.set_channel_credentials(Credentials(certs_, /*client_certificate=*/true));
  const std::string config = dir_.path() + "/config.yaml";
  WriteFile(config, SmallConfig(/*max_trials=*/2, /*parallel=*/2, /*max_failed=*/0));
  std::vector<std::string> submit =
      Submit(server, "tls_job", config, dir_.path() + "/runs",
             {"python3", "-c", "print('accuracy=0.75', flush=True)"});
  const auto separator = std::find(submit.begin(), submit.end(), "--");
  submit.insert(separator, {"--tls-ca", certs_.Path("ca.pem"), "--tls-cert",
                            certs_.Path("client.pem"), "--tls-key", certs_.Path("client.key")});
  const CommandResult submitted = RunCommand(submit);
  ASSERT_EQ(submitted.exit_code, 0) << submitted.out << submitted.err;

  const v1::GetJobResponse job = WaitForJob(server, "tls_job", Ended);
  ASSERT_EQ(job.job().state(), v1::Job::SUCCEEDED) << job.DebugString() << server.log();
  EXPECT_EQ(job.trial_counts().succeeded(), 2);
  for (const v1::Trial& trial : ListTrials(server, "tls_job")) {
    EXPECT_GE(trial.measurement_count(), 1) << trial.DebugString();
    const std::string log = ReadFile(dir_.path() + "/runs/" + std::to_string(trial.id()) +
                                     "/logs/master-0.log");
    // The agent was given paths, and no key's contents.
    EXPECT_THAT(log, Not(HasSubstr("PRIVATE KEY")));
  }
}

TEST_F(TlsTest, ReplacedCertificatesServeNewConnectionsAndOpenOnesStay) {
  // The server's files are copies, replaced below by another CA's.
  const std::string files = dir_.path() + "/live";
  std::filesystem::create_directories(files);
  for (const char* name : {"server.pem", "server.key", "ca.pem"}) {
    std::filesystem::copy_file(certs_.Path(name), files + "/" + name);
  }
  ServerProcess server(dir_.path() + "/data", 0,
                       {"--tls-cert", files + "/server.pem", "--tls-key", files + "/server.key",
                        "--tls-ca", files + "/ca.pem", "--tls-reload-interval", "1s"});
  server.Start();
  const std::shared_ptr<grpc::Channel> open =
      ChannelWithLocalToken(server.address(), Credentials(certs_));
  ASSERT_TRUE(ListStudies(open).ok());

  // Key and certificate swapped as a pair: a new directory renamed over.
  const std::string next = dir_.path() + "/next";
  std::filesystem::create_directories(next);
  for (const char* name : {"server.pem", "server.key", "ca.pem"}) {
    std::filesystem::copy_file(other_.Path(name), next + "/" + name);
  }
  std::filesystem::rename(files, dir_.path() + "/old");
  std::filesystem::rename(next, files);

  // New connections get the new certificate once the server re-reads it.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  bool reloaded = false;
  while (!reloaded && std::chrono::steady_clock::now() < deadline) {
    grpc::ChannelArguments fresh;
    fresh.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    reloaded = ListStudies(ChannelWithLocalToken(server.address(), Credentials(other_), fresh))
                   .ok();
    if (!reloaded) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  ASSERT_TRUE(reloaded) << server.log();
  grpc::ChannelArguments fresh;
  fresh.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  EXPECT_EQ(
      ListStudies(ChannelWithLocalToken(server.address(), Credentials(certs_), fresh)).error_code(),
      grpc::StatusCode::UNAVAILABLE);
  // The connection made before the change is still served.
  EXPECT_TRUE(ListStudies(open).ok());
  EXPECT_TRUE(WaitForLog(server, "TLS files replaced")) << server.log();

  // A broken replacement is named in the log.
  WriteFile(files + "/server.pem", "garbage\n");
  EXPECT_TRUE(WaitForLog(server, "--tls-cert " + files + "/server.pem: no PEM certificate in it"))
      << server.log();
  EXPECT_TRUE(ListStudies(open).ok());

  // SIGHUP is logged, not the end of the server.
  ASSERT_EQ(kill(server.pid(), SIGHUP), 0);
  EXPECT_TRUE(WaitForLog(server, "SIGHUP: the TLS files are re-read every 1s")) << server.log();
  EXPECT_TRUE(ProcessAlive(server.pid()));
  EXPECT_TRUE(ListStudies(open).ok());
}

TEST_F(TlsTest, PlaintextOffLoopbackIsRefusedSayingWhatToAdd) {
  const CommandResult refused = ServeOnce({"--host", "0.0.0.0"});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_THAT(refused.err, HasSubstr("refusing to serve on 0.0.0.0 without TLS"));
  EXPECT_THAT(refused.err, HasSubstr("--tls-cert FILE --tls-key FILE"));
  EXPECT_THAT(refused.err, HasSubstr("--insecure"));
  EXPECT_THAT(refused.out + refused.err, Not(HasSubstr("listening")));
}

TEST_F(TlsTest, InsecureOffLoopbackStartsWithAWarning) {
  ServerProcess server(dir_.path() + "/data", 0, {"--host", "0.0.0.0", "--insecure"});
  server.Start();
  EXPECT_THAT(server.log(), HasSubstr("--insecure: serving on 0.0.0.0 without TLS"));
  const CommandResult listed = RunCommand(Cli(server, {"studies", "list"}));
  EXPECT_EQ(listed.exit_code, 0) << listed.err;

  // `jobs describe` through an address off loopback says so too.
  const std::string host = NonLoopbackAddress();
  if (host.empty()) GTEST_SKIP() << "this machine has no IPv4 address off loopback";
  const std::string address = host + ":" + std::to_string(server.port());
  const CommandResult described = RunCommand(
      {BinaryPath("vernier"), "jobs", "describe", "no_such_job", "--server", address});
  EXPECT_EQ(described.exit_code, 1);
  EXPECT_THAT(described.err, HasSubstr("NOT_FOUND"));
  EXPECT_THAT(described.err, HasSubstr("warning: " + address +
                                       " was reached without TLS, so it runs with --insecure"));
  const CommandResult on_loopback = RunCommand(Cli(server, {"jobs", "describe", "no_such_job"}));
  EXPECT_THAT(on_loopback.err, Not(HasSubstr("warning")));
}

TEST_F(TlsTest, TlsOffLoopbackWithoutClientCertificatesWarns) {
  ServerProcess server(dir_.path() + "/data", 0,
                       [&] {
                         std::vector<std::string> flags = TlsFlags(false);
                         flags.insert(flags.end(), {"--host", "0.0.0.0"});
                         return flags;
                       }());
  server.Start();
  EXPECT_THAT(server.log(), HasSubstr("with TLS but without client certificates"));
}

TEST_F(TlsTest, ABadPemFileIsNamedAtStart) {
  const std::string garbage = dir_.path() + "/garbage.pem";
  WriteFile(garbage, "-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n");
  CommandResult result = ServeOnce({"--tls-cert", garbage, "--tls-key", certs_.Path("server.key"),
                                    "--tls-ca", certs_.Path("ca.pem")});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.err, HasSubstr("error: INVALID_ARGUMENT: --tls-cert " + garbage +
                                    ": no PEM certificate in it"));

  result = ServeOnce({"--tls-cert", certs_.Path("server.pem"), "--tls-key",
                      certs_.Path("missing.key"), "--tls-ca", certs_.Path("ca.pem")});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.err, HasSubstr("--tls-key " + certs_.Path("missing.key") + ": no such file"));

  result = ServeOnce({"--tls-cert", certs_.Path("server.pem"), "--tls-key",
                      other_.Path("server.key"), "--tls-ca", certs_.Path("ca.pem")});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.err, HasSubstr("is not the key of the certificate in --tls-cert"));

  result = ServeOnce({"--host", "0.0.0.0", "--advertise-host", "gpu-head.example", "--tls-cert",
                      certs_.Path("server.pem"), "--tls-key", certs_.Path("server.key"),
                      "--tls-ca", certs_.Path("ca.pem")});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_THAT(result.err, HasSubstr("does not name gpu-head.example"));
}

TEST_F(TlsTest, AnAgentWithABadTlsFileEndsNamingIt) {
  const std::string missing = dir_.path() + "/missing-ca.pem";
  CommandResult result = RunCommand({BinaryPath("vernier-agent"), "--server", "127.0.0.1:1",
                                     "--tls-ca", missing, "--", "true"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.err, HasSubstr("vernier-agent: --tls-ca " + missing + ": no such file"));

  result = RunCommand({BinaryPath("vernier-agent"), "--server", "127.0.0.1:1", "--tls-ca",
                       certs_.Path("ca.pem"), "--tls-cert", certs_.Path("agent.pem"), "--tls-key",
                       certs_.Path("client.key"), "--", "true"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_THAT(result.err, HasSubstr("--tls-key " + certs_.Path("client.key") +
                                    ": is not the key of the certificate in --tls-cert"));
}

}  // namespace
}  // namespace vernier::testing
