// A SQLite database belongs to one `vernier serve`: a second server on the
// same data dir refuses to start with a message saying what to do, and a
// server killed with SIGKILL (or whose replicas outlive it) never locks out
// the next one.
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/server_process.h"
#include "tests/support/subprocess.h"

namespace vernier::testing {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

CommandResult ServeOn(const std::string& data_dir) {
  return RunCommand({BinaryPath("vernier"), "serve", "--port", "0", "--data-dir", data_dir},
                    std::chrono::seconds(30));
}

TEST(SingleServerLockTest, ASecondServerOnOneSqliteDataDirRefusesToStartNamingTheFirst) {
  TempDir dir;
  const std::string data_dir = dir.path() + "/data";
  ServerProcess first(data_dir);
  first.Start();

  const CommandResult second = ServeOn(data_dir);
  EXPECT_NE(second.exit_code, 0);
  EXPECT_THAT(second.err + second.out,
              AllOf(HasSubstr("another vernier serve (PID " + std::to_string(first.pid()) + ")"),
                    HasSubstr(data_dir + "/vernier.db"), HasSubstr("--data-dir"),
                    HasSubstr("postgresql://")));
  // The first server is untouched and still serves.
  EXPECT_THAT(first.log(), ::testing::Not(HasSubstr("another vernier serve")));
  first.Stop();
}

TEST(SingleServerLockTest, AServerKilledWithSigkillDoesNotLockOutTheNext) {
  TempDir dir;
  const std::string data_dir = dir.path() + "/data";
  {
    ServerProcess first(data_dir);
    first.Start();
    first.Kill();
  }
  ServerProcess next(data_dir);
  next.Start();  // Throws with the log if it refuses.
  next.Stop();
}

}  // namespace
}  // namespace vernier::testing
