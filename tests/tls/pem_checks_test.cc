#include "tls/pem_checks.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/support/job_client.h"
#include "tests/support/test_certificates.h"

namespace vernier::tls {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using testing::TestCertificates;

class PemChecksTest : public ::testing::Test {
 protected:
  PemFile Read(const std::string& flag, const std::string& name) {
    absl::StatusOr<PemFile> file = ReadPemFile(flag, certificates_.Path(name));
    EXPECT_TRUE(file.ok()) << file.status();
    return file.ok() ? *file : PemFile{};
  }
  PemFile Written(const std::string& flag, const std::string& name, const std::string& text) {
    vernier::testing::WriteFile(certificates_.Path(name), text);
    return Read(flag, name);
  }

  TestCertificates certificates_{{"gpu-head.example", "10.1.2.3"}};
  TestCertificates other_{};
  // After the certificates: one made in a later second than `now_` would
  // not be valid yet.
  const absl::Time now_ = absl::Now();
};

TEST_F(PemChecksTest, TheScriptsCertificatesPassEveryCheck) {
  const PemFile server = Read("--tls-cert", "server.pem");
  const PemFile ca = Read("--tls-ca", "ca.pem");
  EXPECT_TRUE(CheckCertificates(server, now_).ok());
  EXPECT_TRUE(CheckCertificates(ca, now_).ok());
  EXPECT_TRUE(CheckPrivateKey(Read("--tls-key", "server.key"), server).ok());
  EXPECT_TRUE(CheckIssuedBy(server, ca, /*client=*/false, now_).ok());
  EXPECT_TRUE(CheckIssuedBy(Read("--tls-cert", "client.pem"), ca, /*client=*/true, now_).ok());
  EXPECT_TRUE(CheckIssuedBy(Read("--tls-cert", "agent.pem"), ca, /*client=*/true, now_).ok());
  for (const char* host : {"localhost", "127.0.0.1", "::1", "gpu-head.example", "10.1.2.3"}) {
    EXPECT_TRUE(CheckNamesHost(server, host).ok()) << host;
  }
}

TEST_F(PemChecksTest, AMissingFileOrADirectoryIsNamed) {
  absl::StatusOr<PemFile> missing = ReadPemFile("--tls-cert", certificates_.Path("nope.pem"));
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(missing.status().message(),
            "--tls-cert " + certificates_.Path("nope.pem") + ": no such file");
  absl::StatusOr<PemFile> directory = ReadPemFile("--tls-ca", certificates_.dir());
  EXPECT_THAT(directory.status().message(),
              AllOf(HasSubstr("--tls-ca " + certificates_.dir()), HasSubstr("is a directory")));
}

TEST_F(PemChecksTest, AnEmptyFileIsNamed) {
  vernier::testing::WriteFile(certificates_.Path("empty.pem"), "");
  absl::StatusOr<PemFile> empty = ReadPemFile("--tls-key", certificates_.Path("empty.pem"));
  EXPECT_EQ(empty.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(empty.status().message(), HasSubstr("empty.pem: is empty"));
}

TEST_F(PemChecksTest, AFileWithoutACertificateIsNamed) {
  const PemFile garbage = Written("--tls-cert", "garbage.pem", "not a certificate\n");
  const absl::Status status = CheckCertificates(garbage, now_);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), AllOf(HasSubstr("--tls-cert " + garbage.path),
                                      HasSubstr("no PEM certificate in it")));
  // A key where the certificate should be.
  const PemFile key_as_certificate = Read("--tls-cert", "server.key");
  EXPECT_THAT(CheckCertificates(key_as_certificate, now_).message(),
              HasSubstr("no PEM certificate in it"));
}

TEST_F(PemChecksTest, ACorruptCertificateIsNamed) {
  std::string text = certificates_.Read("server.pem");
  text[text.size() / 2] = text[text.size() / 2] == 'A' ? 'B' : 'A';
  text.insert(text.size() / 2, "!!");
  const PemFile corrupt = Written("--tls-cert", "corrupt.pem", text);
  EXPECT_THAT(CheckCertificates(corrupt, now_).message(), HasSubstr("no PEM certificate in it"));
}

TEST_F(PemChecksTest, AnExpiredCertificateIsNamed) {
  const PemFile server = Read("--tls-cert", "server.pem");
  const absl::Status status = CheckCertificates(server, now_ + absl::Hours(24 * 900));
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), AllOf(HasSubstr("--tls-cert " + server.path),
                                      HasSubstr("has expired")));
}

TEST_F(PemChecksTest, ACaBundleNeedsOneUnexpiredCertificate) {
  const PemFile ca = Read("--tls-ca", "ca.pem");
  EXPECT_TRUE(CheckCaBundle(ca, now_).ok());
  EXPECT_THAT(CheckCaBundle(ca, now_ + absl::Hours(24 * 900)).message(), HasSubstr("has expired"));
  // An expired root beside a good one, as system bundles may hold.
  const TestCertificates lasting({}, "alice", /*days=*/3650);
  const PemFile bundle =
      Written("--tls-ca", "bundle.pem", certificates_.Read("ca.pem") + lasting.Read("ca.pem"));
  EXPECT_TRUE(CheckCaBundle(bundle, now_ + absl::Hours(24 * 900)).ok());
  EXPECT_EQ(CheckCaBundle(bundle, now_ + absl::Hours(24 * 4000)).message(),
            "--tls-ca " + bundle.path + ": every certificate in it has expired");
  const PemFile garbage = Written("--tls-ca", "garbage.pem", "no\n");
  EXPECT_THAT(CheckCaBundle(garbage, now_).message(), HasSubstr("no PEM certificate in it"));
}

TEST_F(PemChecksTest, AKeyThatIsNoKeyOrAnotherCertificatesIsNamed) {
  const PemFile server = Read("--tls-cert", "server.pem");
  const PemFile certificate_as_key = Read("--tls-key", "server.pem");
  EXPECT_THAT(CheckPrivateKey(certificate_as_key, server).message(),
              HasSubstr("no unencrypted PEM private key in it"));
  const PemFile client_key = Read("--tls-key", "client.key");
  const absl::Status status = CheckPrivateKey(client_key, server);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(),
              HasSubstr("client.key: is not the key of the certificate in --tls-cert " +
                        server.path));
}

TEST_F(PemChecksTest, ACertificateFromAnotherCaIsRefused) {
  const PemFile server = Read("--tls-cert", "server.pem");
  absl::StatusOr<PemFile> other_ca = ReadPemFile("--tls-ca", other_.Path("ca.pem"));
  ASSERT_TRUE(other_ca.ok());
  const absl::Status status = CheckIssuedBy(server, *other_ca, /*client=*/false, now_);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(),
              AllOf(HasSubstr("--tls-cert " + server.path),
                    HasSubstr("is not accepted by the CA in --tls-ca " + other_ca->path)));
}

TEST_F(PemChecksTest, AServerCertificateIsNoClientCertificate) {
  const PemFile ca = Read("--tls-client-ca", "ca.pem");
  EXPECT_FALSE(CheckIssuedBy(Read("--tls-agent-cert", "server.pem"), ca, true, now_).ok());
  EXPECT_FALSE(CheckIssuedBy(Read("--tls-cert", "client.pem"), ca, false, now_).ok());
}

TEST_F(PemChecksTest, AHostTheCertificateDoesNotNameIsRefusedWithItsNames) {
  const PemFile server = Read("--tls-cert", "server.pem");
  const absl::Status status = CheckNamesHost(server, "10.9.9.9");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(),
              AllOf(HasSubstr("does not name 10.9.9.9"), HasSubstr("127.0.0.1"),
                    HasSubstr("localhost"), HasSubstr("gpu-head.example"), HasSubstr("10.1.2.3")));
  EXPECT_FALSE(CheckNamesHost(server, "other.example").ok());
}

}  // namespace
}  // namespace vernier::tls
