#include "tls/tls_file_monitor.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "tests/support/job_client.h"
#include "tests/support/test_certificates.h"

namespace vernier::tls {
namespace {

using ::testing::HasSubstr;
using testing::TestCertificates;

class TlsFileMonitorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : {"server.pem", "server.key", "ca.pem"}) Copy(first_, name);
    options_.cert_path = live_.path() + "/server.pem";
    options_.key_path = live_.path() + "/server.key";
    options_.ca_path = live_.path() + "/ca.pem";
  }
  void Copy(const TestCertificates& from, const std::string& name) {
    std::filesystem::copy_file(from.Path(name), live_.path() + "/" + name,
                               std::filesystem::copy_options::overwrite_existing);
  }

  TestCertificates first_;
  TestCertificates second_;
  vernier::testing::TempDir live_;
  ServerTlsOptions options_;
};

TEST_F(TlsFileMonitorTest, TheFilesAtStartAndUnchangedFilesSayNothing) {
  TlsFileMonitor monitor(options_);
  EXPECT_EQ(monitor.Check(absl::Now()), std::nullopt);
  EXPECT_EQ(monitor.Check(absl::Now()), std::nullopt);
}

TEST_F(TlsFileMonitorTest, AGoodReplacementIsSaidOnce) {
  TlsFileMonitor monitor(options_);
  monitor.Check(absl::Now());
  for (const char* name : {"server.pem", "server.key", "ca.pem"}) Copy(second_, name);
  const std::optional<TlsFileMonitor::Change> change = monitor.Check(absl::Now());
  ASSERT_TRUE(change.has_value());
  EXPECT_TRUE(change->ok);
  EXPECT_THAT(change->message, HasSubstr("TLS files replaced"));
  EXPECT_EQ(monitor.Check(absl::Now()), std::nullopt);
}

TEST_F(TlsFileMonitorTest, ABrokenReplacementIsNamedAndItsFixSaid) {
  TlsFileMonitor monitor(options_);
  monitor.Check(absl::Now());
  vernier::testing::WriteFile(options_.cert_path, "garbage\n");
  std::optional<TlsFileMonitor::Change> change = monitor.Check(absl::Now());
  ASSERT_TRUE(change.has_value());
  EXPECT_FALSE(change->ok);
  EXPECT_THAT(change->message, HasSubstr("--tls-cert " + options_.cert_path +
                                         ": no PEM certificate in it"));
  EXPECT_THAT(change->message, HasSubstr("new connections fail until they are fixed"));
  EXPECT_EQ(monitor.Check(absl::Now()), std::nullopt);

  // A key from another pair is as broken.
  Copy(first_, "server.pem");
  Copy(second_, "server.key");
  change = monitor.Check(absl::Now());
  ASSERT_TRUE(change.has_value());
  EXPECT_THAT(change->message, HasSubstr("is not the key of the certificate"));

  Copy(first_, "server.key");
  change = monitor.Check(absl::Now());
  ASSERT_TRUE(change.has_value());
  EXPECT_TRUE(change->ok);
  EXPECT_THAT(change->message, HasSubstr("TLS files fixed"));
}

TEST_F(TlsFileMonitorTest, ADeletedFileIsNamed) {
  TlsFileMonitor monitor(options_);
  monitor.Check(absl::Now());
  std::filesystem::remove(options_.key_path);
  const std::optional<TlsFileMonitor::Change> change = monitor.Check(absl::Now());
  ASSERT_TRUE(change.has_value());
  EXPECT_THAT(change->message, HasSubstr("--tls-key " + options_.key_path + ": no such file"));
}

}  // namespace
}  // namespace vernier::tls
