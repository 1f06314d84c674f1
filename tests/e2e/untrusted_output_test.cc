// End to end: a trainer that prints bytes that are not UTF-8, through the
// real `vernier serve`, agent and CLI. Its trials once stayed RUNNING for an
// hour (the agent's exit report could not be parsed by the service) and
// `jobs stream-logs` hung on its log.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/support/job_client.h"
#include "tests/support/server_process.h"
#include "tests/support/subprocess.h"

namespace vernier::testing {
namespace {

using ::testing::HasSubstr;

constexpr char kReplacement[] = "\xef\xbf\xbd";

std::vector<std::string> NonUtf8Trainer(int exit_code) {
  return {"python3", SourcePath("tests/e2e/non_utf8_trainer.py"), "--exit_code",
          std::to_string(exit_code)};
}

class UntrustedOutputTest : public ::testing::Test {
 protected:
  TempDir dir_;
};

TEST_F(UntrustedOutputTest, ATrainerPrintingInvalidUtf8SucceedsAndItsLogStreams) {
  ServerProcess server(dir_.path() + "/data");
  server.Start();
  const std::string config = dir_.path() + "/hp.yaml";
  WriteFile(config, SmallConfig(2, 2, 0));
  CommandResult submit = RunCommand(
      Submit(server, "non_utf8", config, dir_.path() + "/runs", NonUtf8Trainer(0)));
  ASSERT_EQ(submit.exit_code, 0) << submit.out << submit.err;
  const v1::GetJobResponse job =
      WaitForJob(server, "non_utf8", Ended, std::chrono::seconds(90));
  EXPECT_EQ(job.job().state(), v1::Job::SUCCEEDED) << job.DebugString() << server.log();
  EXPECT_EQ(job.trial_counts().succeeded(), 2);

  CommandResult logs =
      RunCommand(Cli(server, {"jobs", "stream-logs", "non_utf8", "--trial", "1"}),
                 std::chrono::seconds(60));
  ASSERT_EQ(logs.exit_code, 0) << logs.err;
  EXPECT_THAT(logs.out, HasSubstr("[trial 1 master-0] step=1 loss=0.5"));
  EXPECT_THAT(logs.out, HasSubstr(absl::StrCat("[trial 1 master-0] bad ", kReplacement, " byte")));
}

TEST_F(UntrustedOutputTest, AFailingTrainersInvalidOutputReachesTheTrialsReason) {
  ServerProcess server(dir_.path() + "/data");
  server.Start();
  const std::string config = dir_.path() + "/hp.yaml";
  WriteFile(config, SmallConfig(1, 1, 0));
  CommandResult submit = RunCommand(
      Submit(server, "non_utf8_failing", config, dir_.path() + "/runs", NonUtf8Trainer(3)));
  ASSERT_EQ(submit.exit_code, 0) << submit.out << submit.err;
  const v1::GetJobResponse job =
      WaitForJob(server, "non_utf8_failing", Ended, std::chrono::seconds(90));
  EXPECT_EQ(job.job().state(), v1::Job::FAILED) << job.DebugString() << server.log();
  const std::vector<v1::Trial> trials = ListTrials(server, "non_utf8_failing");
  ASSERT_EQ(trials.size(), 1u);
  EXPECT_EQ(trials[0].state(), v1::Trial::FAILED);
  EXPECT_THAT(trials[0].status_reason(), HasSubstr("exited with code 3"));
  EXPECT_THAT(trials[0].status_reason(), HasSubstr(absl::StrCat("bad ", kReplacement, " byte")));
}

// A newline in --job-dir once reached the sbatch script (and the --dry-run
// preview) as a line of its own; it is refused at submit and never stored.
TEST_F(UntrustedOutputTest, AJobDirWithANewlineIsRefusedAtSubmitAndNotStored) {
  ServerProcess server(dir_.path() + "/data");
  server.Start();
  const std::string config = dir_.path() + "/hp.yaml";
  WriteFile(config, SmallConfig(1, 1, 0));
  const std::string job_dir = dir_.path() + "/runs\necho injected > " + dir_.path() + "/pwned";
  for (bool dry_run : {true, false}) {
    std::vector<std::string> argv =
        Submit(server, "injected", config, job_dir, {"/bin/sh", "-c", "echo accuracy=1"});
    if (dry_run) argv.insert(std::find(argv.begin(), argv.end(), "--"), "--dry-run");
    CommandResult submit = RunCommand(argv);
    EXPECT_EQ(submit.exit_code, 1) << submit.out << submit.err;
    EXPECT_THAT(submit.err, HasSubstr("INVALID_ARGUMENT"));
    EXPECT_THAT(submit.err, HasSubstr("job_dir contains a control character (\\n at byte"));
  }
  CommandResult list = RunCommand(Cli(server, {"jobs", "list"}));
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_THAT(list.out, ::testing::Not(HasSubstr("injected")));
}

}  // namespace
}  // namespace vernier::testing
