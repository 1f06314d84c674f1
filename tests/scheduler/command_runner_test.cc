#include "scheduler/slurm/command_runner.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace vernier::scheduler {
namespace {

using std::chrono::milliseconds;
using ::testing::HasSubstr;

TEST(CommandRunnerTest, CapturesOutputsExitCodeAndEnvironmentWithoutAShell) {
  absl::StatusOr<CommandOutput> output =
      RunCommand({"/bin/sh", "-c", "printf '%s' \"$GREETING\"; echo oops >&2; exit 3"},
                 {{"GREETING", "a b;$c"}}, milliseconds(10000));
  ASSERT_TRUE(output.ok()) << output.status();
  EXPECT_EQ(output->out, "a b;$c");
  EXPECT_EQ(output->err, "oops\n");
  EXPECT_EQ(output->exit_code, 3);
  // Arguments are passed as they are, never through a shell.
  output = RunCommand({"echo", "$HOME", "; ls"}, {}, milliseconds(10000));
  ASSERT_TRUE(output.ok()) << output.status();
  EXPECT_EQ(output->out, "$HOME ; ls\n");
}

TEST(CommandRunnerTest, UntilItSucceedsRunsAFailingCommandAgainAndStopsAtItsFirstSuccess) {
  // Fails twice, then succeeds: a counter in a file, one line a run.
  const std::string counter = ::testing::TempDir() + "/runs_until_success";
  std::remove(counter.c_str());
  const std::vector<std::string> argv = {
      "/bin/sh", "-c",
      "echo run >> \"$COUNTER\"; n=$(wc -l < \"$COUNTER\"); echo \"run $n\"; "
      "[ \"$n\" -ge 3 ]"};
  absl::StatusOr<CommandOutput> output = RunCommandUntilItSucceeds(
      argv, {{"COUNTER", counter}}, milliseconds(10000), 5, milliseconds(1));
  ASSERT_TRUE(output.ok()) << output.status();
  EXPECT_EQ(output->exit_code, 0);
  EXPECT_EQ(output->out, "run 3\n");
  // At most `attempts` runs, the last one's output when every run fails.
  std::remove(counter.c_str());
  output = RunCommandUntilItSucceeds(argv, {{"COUNTER", counter}}, milliseconds(10000), 2,
                                     milliseconds(1));
  ASSERT_TRUE(output.ok()) << output.status();
  EXPECT_EQ(output->exit_code, 1);
  EXPECT_EQ(output->out, "run 2\n");
}

TEST(CommandRunnerTest, UntilItSucceedsReturnsAnErrorAtOnce) {
  absl::StatusOr<CommandOutput> output = RunCommandUntilItSucceeds(
      {"vernier-no-such-program"}, {}, milliseconds(10000), 3, milliseconds(60000));
  EXPECT_EQ(output.status().code(), absl::StatusCode::kUnavailable);
}

TEST(CommandRunnerTest, ASignalGives128PlusItsNumber) {
  absl::StatusOr<CommandOutput> output =
      RunCommand({"/bin/sh", "-c", "kill -KILL $$"}, {}, milliseconds(10000));
  ASSERT_TRUE(output.ok()) << output.status();
  EXPECT_EQ(output->exit_code, 137);
}

TEST(CommandRunnerTest, AMissingProgramIsUnavailableAndNamed) {
  absl::StatusOr<CommandOutput> output =
      RunCommand({"vernier-no-such-program", "x"}, {}, milliseconds(10000));
  EXPECT_EQ(output.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(output.status().message(), HasSubstr("cannot run `vernier-no-such-program x`"));
}

TEST(CommandRunnerTest, ATimeoutKillsTheCommandAndItsChildren) {
  // The grandchild holds the pipes open; it must be killed with its group.
  absl::StatusOr<CommandOutput> output =
      RunCommand({"/bin/sh", "-c", "sleep 30 & wait"}, {}, milliseconds(300));
  EXPECT_EQ(output.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(output.status().message(),
              HasSubstr("`/bin/sh -c sleep 30 & wait` did not finish in 300 ms"));
}

TEST(CommandRunnerTest, ACancelKillsTheCommandAndItsChildren) {
  std::atomic<bool> cancelled{false};
  std::thread canceller([&cancelled] {
    std::this_thread::sleep_for(milliseconds(200));
    cancelled = true;
  });
  // Without the cancel this would end on its own, successfully, in 30 s.
  absl::StatusOr<CommandOutput> output =
      RunCommand({"/bin/sh", "-c", "sleep 30 & wait"}, {}, milliseconds(60000), &cancelled);
  canceller.join();
  EXPECT_EQ(output.status().code(), absl::StatusCode::kCancelled);
  EXPECT_THAT(output.status().message(),
              HasSubstr("`/bin/sh -c sleep 30 & wait` was cancelled; killed it"));
  // Cancelled before it starts: killed at once.
  output = RunCommand({"sleep", "30"}, {}, milliseconds(60000), &cancelled);
  EXPECT_EQ(output.status().code(), absl::StatusCode::kCancelled);
}

}  // namespace
}  // namespace vernier::scheduler
