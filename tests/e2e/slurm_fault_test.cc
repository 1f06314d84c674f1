// slurmctld restarted during a Slurm job (issue 38): the controller is
// stopped while two trials run and started again 30 s later, with the same
// configuration and state. The trials keep running under slurmd and their
// agents report to the server directly; the trials due to start meanwhile
// wait for slurmctld instead of failing. The job ends SUCCEEDED with every
// trial SUCCEEDED, submitted once (the trainer counts its launches in its
// trial dir), and every measurement stored. Meanwhile `GetJob` and `jobs
// describe` say since when the job waits for Slurm, and the server logs the
// outage at its start and end. The test starts a cluster of its own
// (scripts/slurm-up.sh), so that the suite's shared one is not disturbed;
// it runs where the suite has one (VERNIER_TEST_SLURM_CONF).
#include <stdlib.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/counting_job.h"
#include "tests/support/job_client.h"
#include "tests/support/server_process.h"
#include "tests/support/slurm_test_cluster.h"
#include "tests/support/subprocess.h"

namespace vernier::testing {
namespace {

using ::testing::HasSubstr;

constexpr int kTrials = 4;
constexpr int kSteps = 8;

TEST(SlurmFaultTest, SlurmctldRestartedDuringAJobFailsNothing) {
  if (SlurmTestConf().empty()) GTEST_SKIP() << kNoSlurmTestCluster;
  absl::StatusOr<std::unique_ptr<SlurmTestCluster>> cluster = SlurmTestCluster::Start();
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  // The server, its Slurm commands and through sbatch the jobs read it.
  setenv("SLURM_CONF", (*cluster)->conf().c_str(), 1);

  TempDir dir;
  // A Slurm command gives up after its own retries (MessageTimeout, 10 s)
  // or this timeout, whichever comes first.
  ServerProcess server(dir.path() + "/data", 0,
                       {"--scheduler", "slurm", "--slurm-command-timeout", "5s"});
  server.Start();
  const std::string job_id = "slurmf";
  const std::string runs = dir.path() + "/runs";
  SubmitAndWaitForActiveTrials(server, CountingJob(job_id, runs, kTrials, /*parallel=*/2, kSteps),
                               2);
  std::this_thread::sleep_for(std::chrono::seconds(1));

  const size_t logged_before_the_outage = server.log().size();
  ASSERT_TRUE((*cluster)->StopController().ok());
  // The two running trials end (their agents report to the server) and the
  // next two are due while slurmctld is away.
  bool said_waiting = false;
  std::string describe_while_waiting;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  do {
    const v1::GetJobResponse polled = GetJob(server, job_id);
    EXPECT_NE(polled.job().state(), v1::Job::FAILED) << polled.job().error_message();
    if (polled.job().has_waiting_for_slurm_since() && describe_while_waiting.empty()) {
      said_waiting = true;
      const CommandResult describe = RunCommand(Cli(server, {"jobs", "describe", job_id}));
      EXPECT_EQ(describe.exit_code, 0) << describe.err;
      describe_while_waiting = describe.out;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  } while (std::chrono::steady_clock::now() < until);
  EXPECT_TRUE(said_waiting) << "GetJob never said the job waits for Slurm" << server.log();
  EXPECT_THAT(describe_while_waiting, HasSubstr("waiting for Slurm since"));
  // While slurmctld is away every Slurm command fails: the outage is logged
  // once at its start, not once per command.
  const std::string logged_during_the_outage = server.log().substr(logged_before_the_outage);
  EXPECT_LE(CountOccurrences(logged_during_the_outage, "Slurm is unreachable since"), 1u)
      << logged_during_the_outage;
  ASSERT_TRUE((*cluster)->StartController().ok());

  ExpectSucceededEveryTrialOnce(server, job_id, runs, kTrials, kSteps);
  const std::string log = server.log();
  EXPECT_THAT(log, ::testing::Not(HasSubstr("could not start the trial"))) << log;
  EXPECT_GE(CountOccurrences(log, "Slurm is unreachable since"), 1u) << log;
  // And at its end. A slurmctld still starting up, or slow on a loaded
  // machine, may show as more outages after it (a command timed out).
  EXPECT_GE(CountOccurrences(log, "Slurm is back after"), 1u) << log;
  server.Stop();
}

}  // namespace
}  // namespace vernier::testing
