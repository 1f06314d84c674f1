// The Slurm backend against a real single-node cluster with 4 fake GPUs
// (scripts/slurm-up.sh; scripts/test.sh starts one and sets
// VERNIER_TEST_SLURM_CONF). Skipped when that variable is unset.
#include "scheduler/slurm/slurm_backend.h"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/slurm/sbatch_script_builder.h"
#include "scheduler/slurm/slurm_commands.h"
#include "scheduler/slurm/slurm_handle.h"
#include "scheduler/slurm/slurm_output_parser.h"
#include "scheduler/transient_backend_error.h"
#include "tests/support/slurm_test_cluster.h"
#include "tests/support/subprocess.h"

namespace vernier::scheduler {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;
using ::testing::HasSubstr;
namespace fs = std::filesystem;

constexpr milliseconds kPatience{60000};

using ::vernier::testing::ReadFile;

class SlurmBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string conf = testing::SlurmTestConf();
    if (conf.empty()) GTEST_SKIP() << testing::kNoSlurmTestCluster;
    options_.commands.env["SLURM_CONF"] = conf;
    options_.kill_wait = std::chrono::seconds(30);
    backend_ = std::make_unique<SlurmBackend>(options_);
  }

  // A test that failed half-way may leave a job running (several loop until
  // cancelled): every job of this test's directory is ended, so that the
  // tests after it on the one cluster do not wait for its GPUs.
  void TearDown() override {
    if (backend_ == nullptr) return;
    const testing::CommandResult jobs = testing::RunCommand(
        {"squeue", "-h", "--format=%i %Z"}, std::chrono::seconds(30), options_.commands.env);
    for (absl::string_view line : absl::StrSplit(jobs.out, '\n', absl::SkipEmpty())) {
      const std::vector<std::string> fields = absl::StrSplit(line, absl::MaxSplits(' ', 1));
      if (fields.size() == 2 && absl::StartsWith(fields[1], dir_.path())) {
        testing::RunCommand({"scancel", fields[0]}, std::chrono::seconds(30),
                            options_.commands.env);
      }
    }
  }

  // A replica running `/bin/sh -c SCRIPT` in the trial's directory.
  ReplicaLaunch Replica(const std::string& role, int index, int gpus, const std::string& script) {
    ReplicaLaunch replica;
    replica.role = role;
    replica.index = index;
    replica.argv = {"/bin/sh", "-c", script};
    replica.working_dir = dir_.path();
    replica.log_path =
        absl::StrCat(dir_.path(), "/trial", next_trial_, "/logs/", role, "-", index, ".log");
    replica.gpu_count = gpus;
    replica.env["VERNIER_TEST_REPLICA"] = absl::StrCat(role, "-", index);
    return replica;
  }

  TrialLaunch Trial(std::vector<ReplicaLaunch> replicas) {
    TrialLaunch launch;
    launch.job_id = "slurm_test";
    launch.study_name = "slurm_test";
    launch.trial_id = next_trial_++;
    launch.trial_dir = absl::StrCat(dir_.path(), "/trial", launch.trial_id);
    launch.replicas = std::move(replicas);
    return launch;
  }

  // Describes `run` until `done` holds for it; the last description.
  v1::TrialRun DescribeUntil(const v1::TrialRun& run,
                             const std::function<bool(const v1::TrialRun&)>& done) {
    const auto deadline = steady_clock::now() + kPatience;
    v1::TrialRun current = run;
    while (true) {
      absl::StatusOr<v1::TrialRun> described = backend_->Describe(current);
      // slurmctld busy (just after another test restarted it, say) is
      // waited out, as the server waits it out.
      if (!described.ok() && IsTransientBackendError(described.status()) &&
          steady_clock::now() < deadline) {
        std::this_thread::sleep_for(milliseconds(200));
        continue;
      }
      EXPECT_TRUE(described.ok()) << described.status();
      if (!described.ok()) return current;
      current = *described;
      if (done(current) || steady_clock::now() >= deadline) return current;
      std::this_thread::sleep_for(milliseconds(200));
    }
  }

  // A trial that holds every GPU of the cluster's node until `release`
  // exists, once it runs: a trial submitted after it waits in the queue.
  v1::TrialRun HoldEveryGpu(const std::string& release) {
    const TrialLaunch holder = Trial({Replica(
        "master", 0, 4, absl::StrCat("while [ ! -e ", release, " ]; do sleep 0.1; done"))});
    absl::StatusOr<v1::TrialRun> holder_run = backend_->Submit(holder);
    EXPECT_TRUE(holder_run.ok()) << holder_run.status();
    if (!holder_run.ok()) return v1::TrialRun();
    const v1::TrialRun holding = DescribeUntil(*holder_run, [](const v1::TrialRun& run) {
      return AllIn(run, v1::ReplicaStatus::RUNNING);
    });
    EXPECT_TRUE(AllIn(holding, v1::ReplicaStatus::RUNNING)) << holding.DebugString();
    return *holder_run;
  }

  static bool AllIn(const v1::TrialRun& run, v1::ReplicaStatus::State state) {
    for (const v1::ReplicaStatus& replica : run.replicas()) {
      if (replica.state() != state) return false;
    }
    return true;
  }

  static bool AllEnded(const v1::TrialRun& run) {
    for (const v1::ReplicaStatus& replica : run.replicas()) {
      if (replica.state() != v1::ReplicaStatus::EXITED &&
          replica.state() != v1::ReplicaStatus::LOST) {
        return false;
      }
    }
    return true;
  }

  testing::TempDir dir_;
  SlurmBackendOptions options_;
  std::unique_ptr<SlurmBackend> backend_;
  int64_t next_trial_ = 1;
};

TEST_F(SlurmBackendTest, ThreeReplicaTrialSeesItsOwnGpusEnvAndLogs) {
  // Each replica writes what it sees into its working directory, says hello
  // on stdout (its log) and ends with its own exit code.
  const std::string report =
      "printf '%s\\n' \"${CUDA_VISIBLE_DEVICES-unset}\" \"$TF_CONFIG\" \"$SLURM_JOB_ID\" "
      "> \"seen-$VERNIER_TEST_REPLICA\"; echo \"hello from $VERNIER_TEST_REPLICA\"; ";
  const std::string tf_config =
      R"({"cluster": {"master": ["127.0.0.1:2222"], "worker": ["127.0.0.1:2223"]}, )"
      R"("task": {"type": "worker", "index": 0}, "note": "it's $HOME, `x`"})";
  ReplicaLaunch master = Replica("master", 0, 1, report + "sleep 1; exit 0");
  ReplicaLaunch worker = Replica("worker", 0, 2, report + "sleep 1; exit 3");
  ReplicaLaunch ps = Replica("ps", 0, 0, report + "sleep 1; kill -TERM $$");
  worker.env["TF_CONFIG"] = tf_config;
  const TrialLaunch launch = Trial({master, worker, ps});

  absl::StatusOr<std::string> script = backend_->PreviewLaunch(launch);
  ASSERT_TRUE(script.ok()) << script.status();
  EXPECT_THAT(*script, HasSubstr("#SBATCH --nodes=1\n"));
  EXPECT_THAT(*script, HasSubstr("#SBATCH --ntasks=3\n"));
  EXPECT_THAT(*script, HasSubstr("#SBATCH --gpus=3\n"));
  for (const std::string gpus : {"1", "2", "0"}) {
    EXPECT_THAT(
        *script,
        HasSubstr("srun --exact --immediate=20 --nodes=1 --ntasks=1 --gpus-per-task=" + gpus));
  }

  absl::StatusOr<v1::TrialRun> run = backend_->Submit(launch);
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_THAT(run->backend_handle(), ::testing::StartsWith("slurm:"));
  EXPECT_EQ(ReadFile(launch.trial_dir + "/logs/slurm-job.sh"), *script);

  // A backend of a later server process knows the run from its handle alone.
  backend_ = std::make_unique<SlurmBackend>(options_);
  const v1::TrialRun ended = DescribeUntil(*run, AllEnded);
  ASSERT_EQ(ended.replicas_size(), 3);
  EXPECT_EQ(ended.replicas(0).state(), v1::ReplicaStatus::EXITED);
  EXPECT_EQ(ended.replicas(0).exit_code(), 0);
  EXPECT_EQ(ended.replicas(1).state(), v1::ReplicaStatus::EXITED);
  EXPECT_EQ(ended.replicas(1).exit_code(), 3);
  EXPECT_EQ(ended.replicas(2).state(), v1::ReplicaStatus::EXITED);
  EXPECT_EQ(ended.replicas(2).term_signal(), SIGTERM);

  std::set<std::string> all_gpus;
  const std::vector<int> expected_counts = {1, 2, 0};
  for (int i = 0; i < 3; ++i) {
    const v1::ReplicaStatus& replica = ended.replicas(i);
    const std::string name = absl::StrCat(replica.role(), "-", replica.index());
    SCOPED_TRACE(name);
    const std::vector<std::string> seen = absl::StrSplit(
        absl::StripSuffix(ReadFile(fs::path(dir_.path()) / ("seen-" + name)), "\n"), '\n');
    ASSERT_EQ(seen.size(), 3u);
    const std::vector<std::string> gpus = absl::StrSplit(seen[0], ',', absl::SkipEmpty());
    EXPECT_EQ(static_cast<int>(gpus.size()), expected_counts[i]) << seen[0];
    for (const std::string& gpu : gpus) EXPECT_TRUE(all_gpus.insert(gpu).second) << gpu;
    EXPECT_EQ(replica.gpus_size(), expected_counts[i]);
    for (int gpu : replica.gpus()) {
      EXPECT_THAT(seen[0], HasSubstr(absl::StrCat(gpu)));
    }
    EXPECT_EQ(seen[2], SlurmHandle::Parse(run->backend_handle())->slurm_job_id);
    EXPECT_FALSE(replica.host().empty());
    EXPECT_THAT(ReadFile(replica.log_path()), HasSubstr("hello from " + name));
  }
  const std::vector<std::string> worker_seen = absl::StrSplit(
      absl::StripSuffix(ReadFile(fs::path(dir_.path()) / "seen-worker-0"), "\n"), '\n');
  ASSERT_EQ(worker_seen.size(), 3u);
  EXPECT_EQ(worker_seen[1], tf_config) << "TF_CONFIG byte for byte";
}

TEST_F(SlurmBackendTest, SecondTrialWaitsPendingUntilTheFirstFreesItsGpus) {
  const std::string release = dir_.path() + "/release";
  const std::string wait_for_release =
      absl::StrCat("while [ ! -e ", release, " ]; do sleep 0.1; done");
  const TrialLaunch first =
      Trial({Replica("master", 0, 1, wait_for_release), Replica("worker", 0, 1, wait_for_release),
             Replica("worker", 1, 1, wait_for_release)});
  const TrialLaunch second =
      Trial({Replica("master", 0, 1, "exit 0"), Replica("worker", 0, 1, "exit 0"),
             Replica("worker", 1, 1, "exit 0")});
  absl::StatusOr<v1::TrialRun> first_run = backend_->Submit(first);
  ASSERT_TRUE(first_run.ok()) << first_run.status();
  const v1::TrialRun first_running = DescribeUntil(
      *first_run, [](const v1::TrialRun& run) { return AllIn(run, v1::ReplicaStatus::RUNNING); });
  ASSERT_TRUE(AllIn(first_running, v1::ReplicaStatus::RUNNING));
  absl::StatusOr<v1::TrialRun> second_run = backend_->Submit(second);
  ASSERT_TRUE(second_run.ok()) << second_run.status();
  // While the first holds 3 of the 4 GPUs, the second (3 more) never starts,
  // not even partly: every look finds all of its replicas pending.
  for (int look = 0; look < 10; ++look) {
    absl::StatusOr<v1::TrialRun> waiting = backend_->Describe(*second_run);
    ASSERT_TRUE(waiting.ok()) << waiting.status();
    EXPECT_TRUE(AllIn(*waiting, v1::ReplicaStatus::PENDING)) << waiting->DebugString();
    std::this_thread::sleep_for(milliseconds(300));
  }
  std::ofstream(release).put('\n');
  const v1::TrialRun first_ended = DescribeUntil(first_running, AllEnded);
  EXPECT_TRUE(AllIn(first_ended, v1::ReplicaStatus::EXITED)) << first_ended.DebugString();
  const v1::TrialRun second_ended = DescribeUntil(*second_run, AllEnded);
  EXPECT_TRUE(AllIn(second_ended, v1::ReplicaStatus::EXITED)) << second_ended.DebugString();
  for (const v1::ReplicaStatus& replica : second_ended.replicas()) {
    EXPECT_EQ(replica.exit_code(), 0);
    EXPECT_EQ(replica.gpus_size(), 1);
  }
}

TEST_F(SlurmBackendTest, CancelEndsEveryStepAndAChildInItsOwnSession) {
  // The worker ignores SIGTERM (it needs the SIGKILL after the grace); the
  // master starts a child in a session of its own, as torchrun's workers.
  // The master loops rather than `wait`s: a `wait` for a child the same
  // signal killed first returns 0, and the master would exit 0.
  const std::string escaped_pid_file = dir_.path() + "/escaped.pid";
  ReplicaLaunch master = Replica("master", 0, 1,
                                 absl::StrCat("setsid sleep 300 & echo $! > ", escaped_pid_file,
                                              "; echo started; while :; do sleep 0.1; done"));
  ReplicaLaunch worker =
      Replica("worker", 0, 1, "trap '' TERM; echo started; while :; do sleep 0.1; done");
  const TrialLaunch launch = Trial({master, worker});
  absl::StatusOr<v1::TrialRun> run = backend_->Submit(launch);
  ASSERT_TRUE(run.ok()) << run.status();
  const v1::TrialRun running = DescribeUntil(*run, [&](const v1::TrialRun& described) {
    return AllIn(described, v1::ReplicaStatus::RUNNING) && fs::exists(escaped_pid_file) &&
           ReadFile(described.replicas(1).log_path()).find("started") != std::string::npos;
  });
  ASSERT_TRUE(AllIn(running, v1::ReplicaStatus::RUNNING));
  int escaped_pid = 0;
  ASSERT_TRUE(
      absl::SimpleAtoi(absl::StripAsciiWhitespace(ReadFile(escaped_pid_file)), &escaped_pid));
  ASSERT_TRUE(testing::ProcessAlive(escaped_pid));

  ASSERT_TRUE(backend_->Cancel(running, milliseconds(2000)).ok());
  EXPECT_FALSE(testing::ProcessAlive(escaped_pid)) << "the child in its own session survived";
  const testing::CommandResult squeue = testing::RunCommand(
      {"squeue", "-h", "-j", SlurmHandle::Parse(run->backend_handle())->slurm_job_id},
      std::chrono::seconds(30), options_.commands.env);
  EXPECT_EQ(squeue.out, "") << "the job still runs or completes";
  const v1::TrialRun ended = DescribeUntil(running, AllEnded);
  EXPECT_TRUE(AllEnded(ended)) << ended.DebugString();
  EXPECT_EQ(ended.replicas(0).state(), v1::ReplicaStatus::EXITED);
  EXPECT_NE(ended.replicas(0).term_signal(), 0)
      << ended.DebugString() << "\nmaster log:\n"
      << ReadFile(ended.replicas(0).log_path()) << "\nbatch output:\n"
      << ReadFile(BatchOutputPath(launch));
  // Cancelling an ended trial is a no-op.
  EXPECT_TRUE(backend_->Cancel(ended, milliseconds(100)).ok());
}

// slurmctld can call a job ended before the batch script has written a step's
// exit status (or before the shared file system shows it): Describe waits
// exit_file_grace for the file before it takes the end from the job's state,
// which here (COMPLETED, the master's exit code 0) would be wrong for the
// worker.
TEST_F(SlurmBackendTest, ALateExitFileIsWaitedForBeforeTheJobsStateIsUsed) {
  options_.exit_file_grace = milliseconds(3000);
  backend_ = std::make_unique<SlurmBackend>(options_);
  const TrialLaunch launch =
      Trial({Replica("master", 0, 1, "exit 0"), Replica("worker", 0, 1, "exit 7")});
  absl::StatusOr<v1::TrialRun> submitted = backend_->Submit(launch);
  ASSERT_TRUE(submitted.ok()) << submitted.status();
  const std::string slurm_job_id = SlurmHandle::Parse(submitted->backend_handle())->slurm_job_id;
  const SlurmCommands commands(options_.commands);
  const auto deadline = steady_clock::now() + kPatience;
  for (;;) {
    absl::StatusOr<std::optional<SlurmJobInfo>> job = commands.ShowJob(slurm_job_id);
    ASSERT_TRUE(job.ok()) << job.status();
    if (!job->has_value() || IsEndedJobState((*job)->state)) break;
    ASSERT_LT(steady_clock::now(), deadline) << "the job did not end";
    std::this_thread::sleep_for(milliseconds(200));
  }
  // As the controller last saw it: both replicas running; the worker's exit
  // file not there yet.
  v1::TrialRun running = *submitted;
  for (v1::ReplicaStatus& replica : *running.mutable_replicas()) {
    replica.set_state(v1::ReplicaStatus::RUNNING);
  }
  const std::string worker_exit = ReplicaExitPath(launch.replicas[1].log_path);
  fs::rename(worker_exit, worker_exit + ".late");

  absl::StatusOr<v1::TrialRun> waiting = backend_->Describe(running);
  ASSERT_TRUE(waiting.ok()) << waiting.status();
  EXPECT_EQ(waiting->replicas(0).state(), v1::ReplicaStatus::EXITED);
  EXPECT_EQ(waiting->replicas(1).state(), v1::ReplicaStatus::RUNNING) << waiting->DebugString();

  fs::rename(worker_exit + ".late", worker_exit);
  absl::StatusOr<v1::TrialRun> ended = backend_->Describe(*waiting);
  ASSERT_TRUE(ended.ok()) << ended.status();
  EXPECT_EQ(ended->replicas(1).state(), v1::ReplicaStatus::EXITED);
  EXPECT_EQ(ended->replicas(1).exit_code(), 7) << ended->DebugString();

  // A file that never comes: after the grace the job's state decides.
  fs::remove(worker_exit);
  const auto grace_starts = steady_clock::now();
  const v1::TrialRun given_up = DescribeUntil(running, AllEnded);
  EXPECT_GE(steady_clock::now() - grace_starts, options_.exit_file_grace);
  EXPECT_EQ(given_up.replicas(1).state(), v1::ReplicaStatus::EXITED) << given_up.DebugString();
  EXPECT_EQ(given_up.replicas(1).exit_code(), 0);
}

TEST_F(SlurmBackendTest, CancelTakesAPendingTrialOutOfTheQueue) {
  // A replica whose step never started writes no exit status: Describe ends
  // it without waiting for one.
  options_.exit_file_grace = milliseconds(30000);
  backend_ = std::make_unique<SlurmBackend>(options_);
  const std::string release = dir_.path() + "/release";
  const v1::TrialRun holder_run = HoldEveryGpu(release);
  ASSERT_FALSE(holder_run.backend_handle().empty());
  const TrialLaunch queued = Trial({Replica("master", 0, 1, "exit 0")});
  absl::StatusOr<v1::TrialRun> queued_run = backend_->Submit(queued);
  ASSERT_TRUE(queued_run.ok()) << queued_run.status();
  absl::StatusOr<v1::TrialRun> waiting = backend_->Describe(*queued_run);
  ASSERT_TRUE(waiting.ok()) << waiting.status();
  EXPECT_TRUE(AllIn(*waiting, v1::ReplicaStatus::PENDING)) << waiting->DebugString();
  ASSERT_TRUE(backend_->Cancel(*queued_run, milliseconds(1000)).ok());
  const auto cancelled_at = steady_clock::now();
  const v1::TrialRun cancelled = DescribeUntil(*queued_run, AllEnded);
  EXPECT_TRUE(AllEnded(cancelled)) << cancelled.DebugString();
  EXPECT_LT(steady_clock::now() - cancelled_at, options_.exit_file_grace);
  EXPECT_FALSE(fs::exists(ReplicaExitPath(queued.replicas[0].log_path))) << "it never ran";
  std::ofstream(release).put('\n');
  DescribeUntil(holder_run, AllEnded);
}

// A server that died between sbatch and storing the run's handle: the
// next finds the batch job, still queued, by its name, comment and
// directory.
TEST_F(SlurmBackendTest, ALaterServerFindsTheQueuedJobOfARunStoredWithoutItsHandle) {
  const std::string release = dir_.path() + "/release";
  const v1::TrialRun holder_run = HoldEveryGpu(release);
  ASSERT_FALSE(holder_run.backend_handle().empty());
  TrialLaunch queued = Trial({Replica("master", 0, 1, "exit 0")});
  queued.attempt = 2;
  absl::StatusOr<v1::TrialRun> queued_run = backend_->Submit(queued);
  ASSERT_TRUE(queued_run.ok()) << queued_run.status();
  // As LaunchTrial stored it just before submitting it.
  v1::TrialRun stored = *queued_run;
  stored.clear_backend_handle();
  stored.mutable_launch_time()->set_seconds(stored.launch_time().seconds() - 1);

  options_.controller_clock_slack = absl::ZeroDuration();
  SlurmBackend later(options_);
  absl::StatusOr<std::optional<v1::TrialRun>> found =
      later.FindSubmitted("slurm_test", "slurm_test", stored);
  ASSERT_TRUE(found.ok()) << found.status();
  ASSERT_TRUE(found->has_value()) << "the queued batch job was not found";
  EXPECT_EQ((*found)->backend_handle(), queued_run->backend_handle());
  absl::StatusOr<v1::TrialRun> waiting = later.Describe(**found);
  ASSERT_TRUE(waiting.ok()) << waiting.status();
  EXPECT_TRUE(AllIn(*waiting, v1::ReplicaStatus::PENDING)) << waiting->DebugString();

  // Not another attempt's, nor one launched after the job was submitted.
  v1::TrialRun other_attempt = stored;
  other_attempt.set_attempt(3);
  v1::TrialRun launched_later = stored;
  launched_later.mutable_launch_time()->set_seconds(stored.launch_time().seconds() + 5);
  for (const v1::TrialRun& run : {other_attempt, launched_later}) {
    absl::StatusOr<std::optional<v1::TrialRun>> none =
        later.FindSubmitted("slurm_test", "slurm_test", run);
    ASSERT_TRUE(none.ok()) << none.status();
    EXPECT_FALSE(none->has_value()) << (*none)->DebugString();
  }

  ASSERT_TRUE(later.Cancel(**found, milliseconds(1000)).ok());
  std::ofstream(release).put('\n');
  DescribeUntil(holder_run, AllEnded);
}

TEST_F(SlurmBackendTest, JobsSlurmForgotAndAClusterWithoutAccountingAnswerNothing) {
  const SlurmCommands commands(options_.commands);
  absl::StatusOr<std::optional<SlurmJobInfo>> shown = commands.ShowJob("999999");
  ASSERT_TRUE(shown.ok()) << shown.status();
  EXPECT_FALSE(shown->has_value());
  // The test cluster has no slurmdbd: "accounting storage is disabled".
  absl::StatusOr<std::optional<SlurmJobInfo>> accounted = commands.AccountedJob("1");
  ASSERT_TRUE(accounted.ok()) << accounted.status();
  EXPECT_FALSE(accounted->has_value());
  // A run whose job Slurm no longer knows and that recorded no exit is lost.
  v1::TrialRun forgotten;
  forgotten.set_trial_id(9);
  forgotten.set_backend_handle(SlurmHandle{"999999", "slurm_test"}.Format());
  v1::ReplicaStatus* replica = forgotten.add_replicas();
  replica->set_role("master");
  replica->set_state(v1::ReplicaStatus::RUNNING);
  replica->set_log_path(dir_.path() + "/nowhere/master-0.log");
  absl::StatusOr<v1::TrialRun> described = backend_->Describe(forgotten);
  ASSERT_TRUE(described.ok()) << described.status();
  EXPECT_EQ(described->replicas(0).state(), v1::ReplicaStatus::LOST);
}

TEST_F(SlurmBackendTest, CapacityIsTheLargestNodesGpus) {
  EXPECT_TRUE(backend_->CheckCapacity({1, 1, 1, 1}).ok());
  EXPECT_TRUE(backend_->CheckCapacity({0}).ok());
  const absl::Status too_big = backend_->CheckCapacity({2, 2, 1});
  EXPECT_EQ(too_big.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(too_big.message(), HasSubstr("need 5 GPUs together (2+2+1)"));
  EXPECT_THAT(too_big.message(), HasSubstr(") has 4"));
}

TEST_F(SlurmBackendTest, UnknownPartitionFailsSubmitWithSbatchsError) {
  options_.sbatch.partition = "no_such_partition";
  SlurmBackend backend(options_);
  absl::StatusOr<v1::TrialRun> run = backend.Submit(Trial({Replica("master", 0, 0, "exit 0")}));
  ASSERT_FALSE(run.ok());
  EXPECT_THAT(run.status().message(), HasSubstr("sbatch --parsable"));
  EXPECT_THAT(run.status().message(), HasSubstr("invalid partition"));
  EXPECT_FALSE(IsTransientBackendError(run.status()));
  EXPECT_FALSE(backend_->UnreachableSince().has_value());
}

// slurmctld restarting can lose sbatch's answer after the job was queued
// (a socket timeout): the error is transient, and submitting the same
// attempt again follows the queued job instead of queueing a second one.
TEST_F(SlurmBackendTest, AnSbatchWhoseAnswerWasLostIsNotSubmittedTwice) {
  const std::string bin = dir_.path() + "/bin";
  fs::create_directories(bin);
  {
    std::ofstream fake(bin + "/sbatch");
    fake << "#!/bin/sh\n/usr/bin/sbatch \"$@\" >/dev/null 2>&1\n"
            "echo 'sbatch: error: Batch job submission failed: Socket timed out on send/recv "
            "operation' >&2\nexit 1\n";
  }
  fs::permissions(bin + "/sbatch", fs::perms::owner_all);
  TrialLaunch launch = Trial({Replica("master", 0, 0, "sleep 2")});
  // A name of this run's own: squeue still lists the jobs of an earlier
  // run (of this test, minutes ago) under the old one.
  launch.job_id = absl::StrCat("lost_answer_", getpid());

  // Slurm's commands are looked up in the server's PATH.
  const std::string path = std::getenv("PATH");
  setenv("PATH", (bin + ":" + path).c_str(), 1);
  absl::StatusOr<v1::TrialRun> lost = backend_->Submit(launch);
  setenv("PATH", path.c_str(), 1);
  ASSERT_FALSE(lost.ok());
  EXPECT_TRUE(IsTransientBackendError(lost.status())) << lost.status();
  EXPECT_THAT(lost.status().message(), HasSubstr("Socket timed out"));
  EXPECT_TRUE(backend_->UnreachableSince().has_value());

  absl::StatusOr<v1::TrialRun> again = backend_->Submit(launch);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_FALSE(backend_->UnreachableSince().has_value());
  absl::StatusOr<SlurmHandle> handle = SlurmHandle::Parse(again->backend_handle());
  ASSERT_TRUE(handle.ok()) << handle.status();
  const testing::CommandResult queued = testing::RunCommand(
      {"squeue", "-h", "--states=all", "--name=" + SlurmJobName(launch), "--format=%i %k"},
      std::chrono::seconds(30), {{"SLURM_CONF", options_.commands.env["SLURM_CONF"]}});
  ASSERT_EQ(queued.exit_code, 0) << queued.err;
  EXPECT_EQ(queued.out, absl::StrCat(handle->slurm_job_id, " vernier-attempt-0\n"));
  const v1::TrialRun ended = DescribeUntil(*again, AllEnded);
  EXPECT_TRUE(AllIn(ended, v1::ReplicaStatus::EXITED)) << ended.DebugString();
}

// A job of the same name and attempt that the lost sbatch did not submit is
// not taken for it: one from another job dir (another server on the same
// cluster, a test run before), or one in this trial's dir submitted before
// the lost sbatch began (a job run earlier with the same id).
TEST_F(SlurmBackendTest, ALostSbatchIsNotTakenForAJobOfTheSameNameFromElsewhere) {
  const std::string bin = dir_.path() + "/bin";
  fs::create_directories(bin);
  {
    // An sbatch whose job never reached the queue, its answer lost too.
    std::ofstream fake(bin + "/sbatch");
    fake << "#!/bin/sh\necho 'sbatch: error: Batch job submission failed: Socket timed out on "
            "send/recv operation' >&2\nexit 1\n";
  }
  fs::permissions(bin + "/sbatch", fs::perms::owner_all);
  TrialLaunch launch = Trial({Replica("master", 0, 0, "sleep 1")});
  launch.job_id = "same_name";
  const std::string elsewhere = dir_.path() + "/elsewhere";
  fs::create_directories(elsewhere);
  fs::create_directories(launch.trial_dir);
  std::vector<std::string> decoys;
  for (const std::string& work_dir : {elsewhere, launch.trial_dir}) {
    const testing::CommandResult decoy = testing::RunCommand(
        {"sbatch", "--parsable", "--job-name=" + SlurmJobName(launch),
         "--comment=" + SlurmJobComment(launch), "--chdir=" + work_dir, "--output=/dev/null",
         "--wrap=sleep 1"},
        std::chrono::seconds(30), {{"SLURM_CONF", options_.commands.env["SLURM_CONF"]}});
    ASSERT_EQ(decoy.exit_code, 0) << decoy.err;
    decoys.emplace_back(absl::StripAsciiWhitespace(decoy.out));
  }
  // Slurm keeps whole seconds: the lost sbatch begins a second later.
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  options_.controller_clock_slack = absl::ZeroDuration();
  SlurmBackend backend(options_);

  const std::string path = std::getenv("PATH");
  setenv("PATH", (bin + ":" + path).c_str(), 1);
  absl::StatusOr<v1::TrialRun> lost = backend.Submit(launch);
  setenv("PATH", path.c_str(), 1);
  ASSERT_FALSE(lost.ok());
  EXPECT_TRUE(IsTransientBackendError(lost.status())) << lost.status();

  absl::StatusOr<v1::TrialRun> again = backend.Submit(launch);
  ASSERT_TRUE(again.ok()) << again.status();
  absl::StatusOr<SlurmHandle> handle = SlurmHandle::Parse(again->backend_handle());
  ASSERT_TRUE(handle.ok()) << handle.status();
  EXPECT_THAT(decoys, ::testing::Not(::testing::Contains(handle->slurm_job_id)));
  const testing::CommandResult queued = testing::RunCommand(
      {"squeue", "-h", "--states=all", "--name=" + SlurmJobName(launch), "--format=%i"},
      std::chrono::seconds(30), {{"SLURM_CONF", options_.commands.env["SLURM_CONF"]}});
  ASSERT_EQ(queued.exit_code, 0) << queued.err;
  EXPECT_THAT(queued.out, HasSubstr(handle->slurm_job_id + "\n"));
  const v1::TrialRun ended = DescribeUntil(*again, AllEnded);
  EXPECT_TRUE(AllIn(ended, v1::ReplicaStatus::EXITED)) << ended.DebugString();
}

}  // namespace
}  // namespace vernier::scheduler
