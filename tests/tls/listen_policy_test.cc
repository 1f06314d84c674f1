#include "tls/listen_policy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace vernier::tls {
namespace {

using ::testing::HasSubstr;

ServerTlsOptions WithTls() {
  ServerTlsOptions tls;
  tls.cert_path = "/certs/server.pem";
  tls.key_path = "/certs/server.key";
  tls.ca_path = "/certs/ca.pem";
  return tls;
}

TEST(IsLoopbackHostTest, LoopbackAddressesAndNames) {
  for (const char* host : {"127.0.0.1", "127.1.2.3", "127.255.255.254", "::1", "[::1]",
                           "0:0:0:0:0:0:0:1", "::ffff:127.0.0.1", "localhost", "LOCALHOST",
                           "localhost.", "db.localhost", "unix:/tmp/vernier.sock",
                           "unix-abstract:vernier"}) {
    EXPECT_TRUE(IsLoopbackHost(host)) << host;
  }
}

TEST(IsLoopbackHostTest, WildcardsOtherAddressesAndNamesAreNot) {
  for (const char* host : {"0.0.0.0", "::", "[::]", "", "10.0.0.5", "192.168.1.10", "128.0.0.1",
                           "::2", "::ffff:10.0.0.1", "fe80::1", "example.com", "localhost.example",
                           "my-localhost", "127.0.0.1.nip.io", "*"}) {
    EXPECT_FALSE(IsLoopbackHost(host)) << host;
  }
}

TEST(IsLoopbackAddressTest, TheHostOfAClientsAddress) {
  for (const char* address : {"127.0.0.1:7730", "localhost:7730", "[::1]:7730", "::1", "localhost",
                              "dns:///localhost:7730", "unix:/tmp/vernier.sock"}) {
    EXPECT_TRUE(IsLoopbackAddress(address)) << address;
  }
  for (const char* address : {"10.0.0.5:7730", "gpu-head.example:7730", "[fe80::1]:7730",
                              "fe80::1", "0.0.0.0:7730", "[::1"}) {
    EXPECT_FALSE(IsLoopbackAddress(address)) << address;
  }
}

TEST(CheckListenSecurityTest, LoopbackNeedsNothing) {
  EXPECT_TRUE(CheckListenSecurity("127.0.0.1", {}, false).ok());
  EXPECT_TRUE(CheckListenSecurity("localhost", {}, false).ok());
  EXPECT_TRUE(CheckListenSecurity("::1", WithTls(), false).ok());
}

TEST(CheckListenSecurityTest, NonLoopbackWithoutTlsIsRefusedNamingWhatToAdd) {
  for (const char* host : {"0.0.0.0", "::", "10.0.0.5", "example.com"}) {
    const absl::Status status = CheckListenSecurity(host, {}, false);
    EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << host;
    EXPECT_THAT(status.message(), HasSubstr(host));
    EXPECT_THAT(status.message(), HasSubstr("--tls-cert FILE --tls-key FILE"));
    EXPECT_THAT(status.message(), HasSubstr("--insecure"));
    EXPECT_THAT(status.message(), HasSubstr("scripts/make-certs.sh"));
  }
}

TEST(CheckListenSecurityTest, NonLoopbackWithTlsOrInsecureStarts) {
  EXPECT_TRUE(CheckListenSecurity("0.0.0.0", WithTls(), false).ok());
  EXPECT_TRUE(CheckListenSecurity("0.0.0.0", {}, true).ok());
}

TEST(CheckListenSecurityTest, InsecureBesideTlsIsAContradiction) {
  const absl::Status status = CheckListenSecurity("0.0.0.0", WithTls(), true);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("--insecure contradicts --tls-cert"));
}

TEST(ListenWarningsTest, InsecureWarnsOnAnyHost) {
  const std::vector<std::string> warnings = ListenWarnings("0.0.0.0", {}, true);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0], HasSubstr("--insecure: serving on 0.0.0.0 without TLS"));
}

TEST(ListenWarningsTest, TlsWithoutClientCertificatesOffLoopbackWarns) {
  const std::vector<std::string> warnings = ListenWarnings("0.0.0.0", WithTls(), false);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0], HasSubstr("--tls-client-ca"));
  ServerTlsOptions mutual = WithTls();
  mutual.client_ca_path = "/certs/ca.pem";
  EXPECT_TRUE(ListenWarnings("0.0.0.0", mutual, false).empty());
  EXPECT_TRUE(ListenWarnings("127.0.0.1", WithTls(), false).empty());
  EXPECT_TRUE(ListenWarnings("127.0.0.1", {}, false).empty());
}

TEST(DefaultAgentServerNameTest, TheDialledHostOrLocalhostForAWildcard) {
  EXPECT_EQ(DefaultAgentServerName("gpu-head.example"), "gpu-head.example");
  EXPECT_EQ(DefaultAgentServerName("10.0.0.5"), "10.0.0.5");
  EXPECT_EQ(DefaultAgentServerName("[::1]"), "::1");
  EXPECT_EQ(DefaultAgentServerName("0.0.0.0"), "localhost");
  EXPECT_EQ(DefaultAgentServerName("::"), "localhost");
}

}  // namespace
}  // namespace vernier::tls
