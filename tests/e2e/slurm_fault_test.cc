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
#include <filesystem>
#include <memory>
#include <string>
#include <thread>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/counting_job.h"
#include "tests/support/job_client.h"
#include "tests/support/server_process.h"
#include "tests/support/slurm_test_cluster.h"
#include "tests/support/subprocess.h"
#include "tuner/storage/storage_factory.h"

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

// A trial whose Slurm job started just before slurmctld went away: its
// batch script runs, but srun cannot create the replica's step without
// slurmctld ("Unable to contact slurm controller"). The replica waits until
// slurmctld answers again and this node registered with it, and starts
// then, once, instead of failing: the CI failure of the test above, where
// the outage began before a trial's batch script reached srun. The test
// holds the batch scripts' srun (an `srun` first on the server's PATH,
// which sbatch passes to the jobs, waits while DIR/hold exists, then runs
// Slurm's) while it stops slurmctld.
TEST(SlurmFaultTest, AStepDueWhileSlurmctldIsAwayStartsOnceWhenItIsBack) {
  if (SlurmTestConf().empty()) GTEST_SKIP() << kNoSlurmTestCluster;
  absl::StatusOr<std::unique_ptr<SlurmTestCluster>> cluster = SlurmTestCluster::Start();
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  setenv("SLURM_CONF", (*cluster)->conf().c_str(), 1);

  TempDir dir;
  const std::string hold = dir.path() + "/hold";
  const std::string held = dir.path() + "/held";
  const std::string srun = dir.path() + "/bin/srun";
  WriteFile(srun, absl::StrCat("#!/bin/sh\ntouch '", held, "'\nwhile [ -e '", hold,
                               "' ]; do sleep 0.2; done\nexec /usr/bin/srun \"$@\"\n"));
  std::filesystem::permissions(srun, std::filesystem::perms::owner_all);
  WriteFile(hold, "");
  setenv("PATH", absl::StrCat(dir.path(), "/bin:", getenv("PATH")).c_str(), 1);
  ServerProcess server(dir.path() + "/data", 0,
                       {"--scheduler", "slurm", "--slurm-command-timeout", "5s"});
  server.Start();
  const std::string job_id = "slurmstep";
  const std::string runs = dir.path() + "/runs";
  SubmitAndWaitForActiveTrials(server, CountingJob(job_id, runs, 1, /*parallel=*/1, kSteps), 1);
  const auto held_until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!std::filesystem::exists(held) && std::chrono::steady_clock::now() < held_until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(std::filesystem::exists(held))
      << "the trial's batch script never ran" << server.log();

  ASSERT_TRUE((*cluster)->StopController().ok());
  std::filesystem::remove(hold);
  // srun gives up on slurmctld after its MessageTimeout (10 s); the batch
  // script then says the step waits.
  const std::string master_log = absl::StrCat(runs, "/", job_id, "/1/logs/master-0.log");
  const auto said_until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (ReadFile(master_log).find("slurmctld does not answer") == std::string::npos &&
         std::chrono::steady_clock::now() < said_until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  const std::string waiting = ReadFile(master_log);
  EXPECT_THAT(waiting, HasSubstr("Unable to contact slurm controller"));
  EXPECT_THAT(waiting,
              HasSubstr("the step did not start: slurmctld does not answer; starting it once "
                        "slurmctld answers"));
  EXPECT_NE(GetJob(server, job_id).job().state(), v1::Job::FAILED);
  ASSERT_TRUE((*cluster)->StartController().ok());

  ExpectSucceededEveryTrialOnce(server, job_id, runs, 1, kSteps);
  EXPECT_FALSE(HasFailure()) << "master-0's log:\n" << ReadFile(master_log);
  server.Stop();
}

// A server killed between sbatch and storing the trial's run handle, while
// the trial's batch job waits in Slurm's queue (another job holds the one
// node): the server started next finds the queued job by its name,
// attempt and directory and takes the run over. Past the agent timeout (no
// agent can be heard before the job starts) the trial is neither submitted
// again nor failed; once the node is free it runs, once, and the job
// succeeds.
TEST(SlurmFaultTest, AQueuedTrialWhoseHandleWasNeverStoredIsNotSubmittedAgain) {
  if (SlurmTestConf().empty()) GTEST_SKIP() << kNoSlurmTestCluster;
  absl::StatusOr<std::unique_ptr<SlurmTestCluster>> cluster = SlurmTestCluster::Start();
  ASSERT_TRUE(cluster.ok()) << cluster.status();
  setenv("SLURM_CONF", (*cluster)->conf().c_str(), 1);

  TempDir dir;
  const std::string release = dir.path() + "/release";
  const CommandResult holder = RunCommand(
      {"sbatch", "--parsable", "--exclusive", "--output=/dev/null", "--chdir=" + dir.path(),
       absl::StrCat("--wrap=while [ ! -e ", release, " ]; do sleep 0.2; done")});
  ASSERT_EQ(holder.exit_code, 0) << holder.err;
  const std::string holder_id(absl::StripAsciiWhitespace(holder.out));
  const auto state_of = [](const std::string& slurm_job) {
    return std::string(absl::StripAsciiWhitespace(
        RunCommand({"squeue", "-h", "--states=all", "-j", slurm_job, "-o", "%T"}).out));
  };
  for (int i = 0; i < 200 && state_of(holder_id) != "RUNNING"; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_EQ(state_of(holder_id), "RUNNING");

  const std::vector<std::string> flags = {"--scheduler", "slurm", "--agent-timeout", "3s"};
  const int port = RestartablePort();
  auto server = std::make_unique<ServerProcess>(dir.path() + "/data", port, flags);
  server->Start();
  const std::string job_id = "queued";
  const std::string runs = dir.path() + "/runs";
  {
    grpc::ClientContext context;
    v1::SubmitTrainingJobRequest request;
    *request.mutable_job() = CountingJob(job_id, runs, /*max_trials=*/1, /*parallel=*/1, kSteps);
    v1::Job submitted;
    const grpc::Status status = server->JobStub()->SubmitTrainingJob(&context, request, &submitted);
    ASSERT_TRUE(status.ok()) << status.error_message();
  }
  const v1::GetJobResponse queued = WaitForJob(
      *server, job_id,
      [](const v1::GetJobResponse& job) {
        return job.trial_runs_size() == 1 && !job.trial_runs(0).backend_handle().empty();
      },
      std::chrono::seconds(60));
  const std::string handle = queued.trial_runs(0).backend_handle();
  server->Kill();
  {
    // The run as a kill between sbatch and storing its handle leaves it.
    absl::StatusOr<std::unique_ptr<storage::Storage>> store =
        storage::OpenStorage(dir.path() + "/data/vernier.db");
    ASSERT_TRUE(store.ok()) << store.status();
    absl::StatusOr<std::vector<v1::TrialRun>> stored = (*store)->ListTrialRuns(job_id);
    ASSERT_TRUE(stored.ok() && stored->size() == 1u) << stored.status();
    v1::TrialRun run = stored->front();
    run.clear_backend_handle();
    ASSERT_TRUE((*store)->PutTrialRun(job_id, run).ok());
  }
  server = std::make_unique<ServerProcess>(dir.path() + "/data", port, flags);
  server->Start();
  // Twice the agent timeout, the trial's job still queued.
  std::this_thread::sleep_for(std::chrono::seconds(6));
  const v1::GetJobResponse waiting = GetJob(*server, job_id);
  EXPECT_EQ(waiting.job().state(), v1::Job::RUNNING) << waiting.DebugString() << server->log();
  ASSERT_EQ(waiting.trial_runs_size(), 1);
  EXPECT_EQ(waiting.trial_runs(0).backend_handle(), handle) << server->log();
  const CommandResult named = RunCommand(
      {"squeue", "-h", "--states=all", "--name=vernier-" + job_id + "-1", "-o", "%i %T"});
  EXPECT_EQ(CountOccurrences(named.out, "\n"), 1u) << "submitted again:\n" << named.out;
  EXPECT_THAT(named.out, HasSubstr("PENDING"));

  WriteFile(release, "\n");
  ExpectSucceededEveryTrialOnce(*server, job_id, runs, 1, kSteps);
  EXPECT_THAT(server->log(), HasSubstr("taken over, not launched again"));
  server->Stop();
}

}  // namespace
}  // namespace vernier::testing
