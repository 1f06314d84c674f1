#include "tls/server_credentials.h"

#include <gmock/gmock.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <optional>

#include "absl/synchronization/mutex.h"
#include "tests/support/test_certificates.h"
#include "tls/channel_credentials.h"
#include "tls/peer_identity.h"
#include "vernier/v1/study_service.grpc.pb.h"

namespace vernier::tls {
namespace {

using ::testing::HasSubstr;
using testing::TestCertificates;

// Answers GetStudy with NOT_FOUND, remembering who called.
class RecordingStudyService final : public v1::StudyService::Service {
 public:
  grpc::Status GetStudy(grpc::ServerContext* context, const v1::GetStudyRequest*,
                        v1::Study*) override {
    absl::MutexLock lock(&mutex_);
    caller_ = PeerCommonName(*context);
    return grpc::Status(grpc::StatusCode::NOT_FOUND, "no study");
  }
  std::optional<std::string> caller() {
    absl::MutexLock lock(&mutex_);
    return caller_;
  }

 private:
  absl::Mutex mutex_;
  std::optional<std::string> caller_;
};

class ServerCredentialsTest : public ::testing::Test {
 protected:
  ServerTlsOptions Options(bool mutual) const {
    ServerTlsOptions options;
    options.cert_path = certificates_.Path("server.pem");
    options.key_path = certificates_.Path("server.key");
    options.ca_path = certificates_.Path("ca.pem");
    options.agent_server_name = "localhost";
    if (mutual) {
      options.client_ca_path = certificates_.Path("ca.pem");
      options.agent_cert_path = certificates_.Path("agent.pem");
      options.agent_key_path = certificates_.Path("agent.key");
    }
    return options;
  }
  ClientTlsOptions Client(bool with_certificate) const {
    ClientTlsOptions options;
    options.ca_path = certificates_.Path("ca.pem");
    if (with_certificate) {
      options.cert_path = certificates_.Path("client.pem");
      options.key_path = certificates_.Path("client.key");
    }
    return options;
  }
  // Starts a server with `options` on a free loopback port.
  void Serve(const ServerTlsOptions& options) {
    absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> credentials =
        MakeServerCredentials(options, absl::Now());
    ASSERT_TRUE(credentials.ok()) << credentials.status();
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", *credentials, &port_);
    builder.RegisterService(&service_);
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
  }
  // GetStudy from a client with `options`, dialling `host`.
  grpc::Status Call(const ClientTlsOptions& options, const std::string& host = "localhost") {
    absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> credentials =
        MakeChannelCredentials(options, absl::Now());
    EXPECT_TRUE(credentials.ok()) << credentials.status();
    if (!credentials.ok()) return grpc::Status(grpc::StatusCode::INTERNAL, "no credentials");
    grpc::ChannelArguments arguments;
    ApplyServerName(options, arguments);
    auto stub = v1::StudyService::NewStub(grpc::CreateCustomChannel(
        host + ":" + std::to_string(port_), *credentials, arguments));
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    v1::GetStudyRequest request;
    v1::Study study;
    return stub->GetStudy(&context, request, &study);
  }

  TestCertificates certificates_{{}, "alice"};
  TestCertificates other_{{}, "mallory"};
  RecordingStudyService service_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
};

TEST_F(ServerCredentialsTest, TheScriptsFilesPassTheStartChecks) {
  EXPECT_TRUE(CheckServerTlsFiles(Options(false), absl::Now()).ok());
  EXPECT_TRUE(CheckServerTlsFiles(Options(true), absl::Now()).ok());
  EXPECT_TRUE(CheckServerTlsFiles(ServerTlsOptions{}, absl::Now()).ok());
}

TEST_F(ServerCredentialsTest, EachWrongFileIsNamedAtStart) {
  ServerTlsOptions missing_key = Options(false);
  missing_key.key_path = certificates_.Path("missing.key");
  EXPECT_EQ(CheckServerTlsFiles(missing_key, absl::Now()).message(),
            "--tls-key " + missing_key.key_path + ": no such file");

  ServerTlsOptions other_key = Options(false);
  other_key.key_path = other_.Path("server.key");
  EXPECT_THAT(CheckServerTlsFiles(other_key, absl::Now()).message(),
              HasSubstr("--tls-key " + other_key.key_path + ": is not the key of the certificate"));

  ServerTlsOptions other_ca = Options(false);
  other_ca.ca_path = other_.Path("ca.pem");
  EXPECT_THAT(CheckServerTlsFiles(other_ca, absl::Now()).message(),
              HasSubstr("is not accepted by the CA in --tls-ca " + other_ca.ca_path));

  ServerTlsOptions unnamed = Options(false);
  unnamed.agent_server_name = "gpu-head.example";
  EXPECT_THAT(CheckServerTlsFiles(unnamed, absl::Now()).message(),
              HasSubstr("does not name gpu-head.example"));

  ServerTlsOptions foreign_agent = Options(true);
  foreign_agent.agent_cert_path = other_.Path("agent.pem");
  foreign_agent.agent_key_path = other_.Path("agent.key");
  EXPECT_THAT(CheckServerTlsFiles(foreign_agent, absl::Now()).message(),
              HasSubstr("--tls-agent-cert " + foreign_agent.agent_cert_path));

  ServerTlsOptions missing_client_ca = Options(true);
  missing_client_ca.client_ca_path = certificates_.Path("nope.pem");
  EXPECT_EQ(MakeServerCredentials(missing_client_ca, absl::Now()).status().message(),
            "--tls-client-ca " + missing_client_ca.client_ca_path + ": no such file");
}

TEST_F(ServerCredentialsTest, AClientsWrongFilesAreNamed) {
  ClientTlsOptions missing_ca = Client(false);
  missing_ca.ca_path = certificates_.Path("nope.pem");
  EXPECT_EQ(MakeChannelCredentials(missing_ca, absl::Now()).status().message(),
            "--tls-ca " + missing_ca.ca_path + ": no such file");
  ClientTlsOptions half = Client(true);
  half.key_path.clear();
  EXPECT_THAT(MakeChannelCredentials(half, absl::Now()).status().message(),
              HasSubstr("--tls-cert needs --tls-key"));
  ClientTlsOptions no_ca = Client(true);
  no_ca.ca_path.clear();
  EXPECT_THAT(MakeChannelCredentials(no_ca, absl::Now()).status().message(),
              HasSubstr("need --tls-ca"));
  ClientTlsOptions wrong_key = Client(true);
  wrong_key.key_path = certificates_.Path("agent.key");
  EXPECT_THAT(MakeChannelCredentials(wrong_key, absl::Now()).status().message(),
              HasSubstr("--tls-key " + wrong_key.key_path + ": is not the key"));
  EXPECT_TRUE(MakeChannelCredentials(ClientTlsOptions{}, absl::Now()).ok());
}

TEST_F(ServerCredentialsTest, TlsServesAClientTrustingItsCaAndNamesNobody) {
  Serve(Options(false));
  EXPECT_EQ(Call(Client(false)).error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(service_.caller(), std::nullopt);
}

TEST_F(ServerCredentialsTest, AClientTrustingAnotherCaCannotConnect) {
  Serve(Options(false));
  ClientTlsOptions other = Client(false);
  other.ca_path = other_.Path("ca.pem");
  EXPECT_EQ(Call(other).error_code(), grpc::StatusCode::UNAVAILABLE);
}

TEST_F(ServerCredentialsTest, TheServerNameOverrideIsTheNameChecked) {
  Serve(Options(false));
  // An agent's target of several servers, "ipv4:A:P,B:P", has no one host:
  // the name it checks is the override.
  ClientTlsOptions named = Client(false);
  named.server_name = "localhost";
  EXPECT_EQ(Call(named, "ipv4:127.0.0.1").error_code(), grpc::StatusCode::NOT_FOUND);
  named.server_name = "gpu-head.example";
  EXPECT_EQ(Call(named, "ipv4:127.0.0.1").error_code(), grpc::StatusCode::UNAVAILABLE);
}

TEST_F(ServerCredentialsTest, MutualTlsNamesTheCallerByItsCertificatesCommonName) {
  Serve(Options(true));
  EXPECT_EQ(Call(Client(true)).error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(service_.caller(), std::optional<std::string>("alice"));
}

TEST_F(ServerCredentialsTest, MutualTlsRefusesAClientWithoutACertificate) {
  Serve(Options(true));
  EXPECT_EQ(Call(Client(false)).error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(service_.caller(), std::nullopt);
}

TEST_F(ServerCredentialsTest, MutualTlsRefusesACertificateFromAnotherCa) {
  Serve(Options(true));
  ClientTlsOptions mallory = Client(true);
  mallory.cert_path = other_.Path("client.pem");
  mallory.key_path = other_.Path("client.key");
  EXPECT_EQ(Call(mallory).error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(service_.caller(), std::nullopt);
}

}  // namespace
}  // namespace vernier::tls
