// scripts/free-ports.sh: the ports that the test PostgreSQL and Slurm servers
// and the tests' restarted `vernier serve` get lie below the kernel's
// ephemeral range, from 10000 to 19999, so that no connection the suite
// opens while such a server is stopped takes its port.
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/server_process.h"
#include "tests/support/source_script.h"

namespace vernier::testing {
namespace {

using ::testing::HasSubstr;

int EphemeralLow() {
  std::ifstream range("/proc/sys/net/ipv4/ip_local_port_range");
  int low = 32768;
  range >> low;
  return low;
}

void ExpectBelowTheEphemeralRange(int port) {
  EXPECT_GE(port, 10000);
  EXPECT_LE(port, 19999);
  // Where the kernel leaves room below its range (Linux's default starts
  // at 32768); the script warns where it does not.
  if (EphemeralLow() > 11000) {
    EXPECT_LT(port, EphemeralLow());
  }
}

TEST(FreePortsTest, GivesDistinctPortsBelowTheEphemeralRange) {
  const absl::StatusOr<std::string> out = RunSourceScript("free-ports.sh", {"5"});
  ASSERT_TRUE(out.ok()) << out.status();
  const std::vector<std::string> lines = absl::StrSplit(*out, '\n');
  ASSERT_EQ(lines.size(), 5u) << *out;
  std::set<int> ports;
  for (const std::string& line : lines) {
    const int port = std::stoi(line);
    ExpectBelowTheEphemeralRange(port);
    ports.insert(port);
  }
  EXPECT_EQ(ports.size(), 5u) << *out;
}

TEST(FreePortsTest, OneByDefaultAndForARestartedServer) {
  const absl::StatusOr<std::string> out = RunSourceScript("free-ports.sh");
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectBelowTheEphemeralRange(std::stoi(*out));
  ExpectBelowTheEphemeralRange(RestartablePort());
}

TEST(FreePortsTest, ACountThatIsNotAWholeNumberFromOneTo999IsRefused) {
  for (const std::string count : {"0", "-1", "x", "1000", "2.5", ""}) {
    SCOPED_TRACE(count);
    const absl::StatusOr<std::string> out = RunSourceScript("free-ports.sh", {count});
    ASSERT_FALSE(out.ok()) << *out;
    EXPECT_THAT(
        out.status().message(),
        HasSubstr("free-ports: N must be a whole number from 1 to 999, not '" + count + "'"));
  }
}

}  // namespace
}  // namespace vernier::testing
