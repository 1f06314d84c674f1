#include "scheduler/local/local_backend.h"

#include <limits.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/local/local_handle.h"
#include "scheduler/local/process_table.h"
#include "spdlog/spdlog.h"
#include "tests/support/log_capture.h"
#include "tests/support/subprocess.h"

namespace vernier::scheduler {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;
namespace fs = std::filesystem;

constexpr milliseconds kPatience{10000};

bool PollUntil(const std::function<bool()>& condition, milliseconds timeout = kPatience) {
  const auto deadline = steady_clock::now() + timeout;
  while (!condition()) {
    if (steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(milliseconds(5));
  }
  return true;
}

using ::vernier::testing::ReadFile;

std::string Hostname() {
  char name[HOST_NAME_MAX + 1] = {};
  gethostname(name, sizeof(name) - 1);
  return name;
}

// Gone, or a zombie nobody reaps: in either case it runs no more.
bool ProcessEnded(pid_t pid) {
  absl::StatusOr<ProcessStat> stat = ProcessTable().Stat(pid);
  return !stat.ok() || stat->HasEnded();
}

bool ProcessRuns(pid_t pid) { return !ProcessEnded(pid); }

// Waits until a process of group `process_group` runs `comm`: a shell's
// child is only rid of the shell's signal handlers once it has exec'd, and
// a signal that reaches it before is lost to the test.
bool AwaitGroupRuns(pid_t process_group, const std::string& comm) {
  return PollUntil([&] {
    absl::StatusOr<std::vector<pid_t>> members = ProcessTable().LiveMembersOfGroup(process_group);
    if (!members.ok()) return false;
    return std::any_of(members->begin(), members->end(), [&](pid_t member) {
      absl::StatusOr<ProcessStat> stat = ProcessTable().Stat(member);
      return stat.ok() && stat->comm == comm;
    });
  });
}

uint64_t StartTime(pid_t pid) {
  absl::StatusOr<ProcessStat> stat = ProcessTable().Stat(pid);
  EXPECT_TRUE(stat.ok()) << stat.status();
  return stat.ok() ? stat->start_time_ticks : 0;
}

// Starts `sleep 30` in a session of its own, as a grandchild that is no
// child of this process: what a replica started by an earlier server looks
// like.
pid_t StartDetachedSleeper() {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return -1;
  const pid_t middle = fork();
  if (middle == 0) {
    const pid_t sleeper = fork();
    if (sleeper == 0) {
      setsid();
      execl("/bin/sleep", "sleep", "30", static_cast<char*>(nullptr));
      _exit(127);
    }
    [[maybe_unused]] ssize_t ignored = write(pipe_fds[1], &sleeper, sizeof(sleeper));
    _exit(0);
  }
  close(pipe_fds[1]);
  pid_t sleeper = -1;
  if (read(pipe_fds[0], &sleeper, sizeof(sleeper)) != sizeof(sleeper)) sleeper = -1;
  close(pipe_fds[0]);
  waitpid(middle, nullptr, 0);
  // Its session is its own once setsid ran.
  PollUntil([sleeper] {
    absl::StatusOr<ProcessStat> stat = ProcessTable().Stat(sleeper);
    return stat.ok() && stat->session == sleeper;
  });
  return sleeper;
}

class LocalBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "local_backend_test.XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }

  void TearDown() override {
    for (const v1::TrialRun& run : to_cancel_) {
      EXPECT_TRUE(backend_.Cancel(run, milliseconds(0)).ok());
    }
    for (pid_t pid : to_kill_) kill(pid, SIGKILL);
    fs::remove_all(dir_);
  }

  ReplicaLaunch Replica(std::string role, int index, std::vector<std::string> argv) {
    ReplicaLaunch replica;
    replica.role = std::move(role);
    replica.index = index;
    replica.argv = std::move(argv);
    const std::string name = absl::StrCat(replica.role, "-", replica.index);
    replica.working_dir = (dir_ / "work" / name).string();
    replica.log_path = (dir_ / "logs" / (name + ".log")).string();
    return replica;
  }

  ReplicaLaunch Shell(std::string role, int index, std::string script) {
    return Replica(std::move(role), index, {"/bin/sh", "-c", std::move(script)});
  }

  TrialLaunch Trial(std::vector<ReplicaLaunch> replicas, int64_t trial_id = 3) {
    TrialLaunch launch;
    launch.job_id = "lr_sweep_001";
    launch.study_name = "lr_sweep_001_study";
    launch.trial_id = trial_id;
    launch.attempt = 1;
    launch.trial_dir = (dir_ / std::to_string(trial_id)).string();
    launch.replicas = std::move(replicas);
    return launch;
  }

  // Submits and cancels at the end of the test whatever still runs.
  v1::TrialRun MustSubmit(const TrialLaunch& launch) {
    absl::StatusOr<v1::TrialRun> run = backend_.Submit(launch);
    EXPECT_TRUE(run.ok()) << run.status();
    if (!run.ok()) return v1::TrialRun();
    to_cancel_.push_back(*run);
    return *run;
  }

  // Describes `run` until replica `index` is no longer RUNNING.
  v1::ReplicaStatus AwaitEnd(const v1::TrialRun& run, int index) {
    v1::ReplicaStatus replica;
    const bool ended = PollUntil([&] {
      absl::StatusOr<v1::TrialRun> described = backend_.Describe(run);
      EXPECT_TRUE(described.ok()) << described.status();
      if (!described.ok()) return true;
      replica = described->replicas(index);
      return replica.state() != v1::ReplicaStatus::RUNNING;
    });
    EXPECT_TRUE(ended) << "replica " << index << " still running";
    return replica;
  }

  bool AwaitFile(const fs::path& path) {
    return PollUntil([&] { return fs::exists(path) && fs::file_size(path) > 0; });
  }

  fs::path dir_;
  LocalBackend backend_;
  std::vector<v1::TrialRun> to_cancel_;
  std::vector<pid_t> to_kill_;
};

TEST_F(LocalBackendTest, SubmitReportsReplicasAndAppendsTheirOutputToTheLog) {
  setenv("VERNIER_TEST_SERVER_VAR", "from-server", 1);
  ReplicaLaunch replica =
      Shell("master", 0,
            "echo \"added=$VERNIER_TEST_ADDED server=$VERNIER_TEST_SERVER_VAR cwd=$(pwd)\"; "
            "echo to-stderr >&2; read line; echo \"stdin=[$line]\"");
  replica.env = {{"VERNIER_TEST_ADDED", "from-launch"}, {"VERNIER_TEST_SERVER_VAR", "overridden"}};
  replica.gpus = {2, 3};
  replica.log_path = (dir_ / "logs" / "nested" / "master-0.log").string();

  const v1::TrialRun run = MustSubmit(Trial({replica}));
  EXPECT_EQ(run.trial_id(), 3);
  EXPECT_EQ(run.attempt(), 1);
  EXPECT_EQ(run.trial_dir(), (dir_ / "3").string());
  EXPECT_GT(run.launch_time().seconds(), 0);
  ASSERT_EQ(run.replicas_size(), 1);
  const v1::ReplicaStatus& started = run.replicas(0);
  EXPECT_EQ(started.role(), "master");
  EXPECT_EQ(started.index(), 0);
  EXPECT_EQ(started.state(), v1::ReplicaStatus::RUNNING);
  EXPECT_EQ(started.host(), Hostname());
  EXPECT_GT(started.pid(), 0);
  EXPECT_THAT(started.gpus(), ::testing::ElementsAre(2, 3));
  EXPECT_EQ(started.log_path(), replica.log_path);
  EXPECT_THAT(run.backend_handle(), AllOf(StartsWith(absl::StrCat("local:", started.pid(), "@")),
                                          HasSubstr(";job=lr_sweep_001")));

  const v1::ReplicaStatus ended = AwaitEnd(run, 0);
  EXPECT_EQ(ended.state(), v1::ReplicaStatus::EXITED);
  EXPECT_EQ(ended.exit_code(), 0);
  EXPECT_EQ(ended.term_signal(), 0);
  EXPECT_EQ(ReadFile(replica.log_path), "added=from-launch server=overridden cwd=" +
                                            replica.working_dir + "\nto-stderr\nstdin=[]\n");

  // A second attempt appends to the same log.
  replica.argv = {"/bin/sh", "-c", "echo second"};
  const v1::TrialRun second = MustSubmit(Trial({replica}));
  AwaitEnd(second, 0);
  EXPECT_THAT(ReadFile(replica.log_path), AllOf(StartsWith("added="), HasSubstr("\nsecond\n")));
}

TEST_F(LocalBackendTest, ReplicaSeesItsOwnEnvironmentAndNothingOfTheServers) {
  setenv("VERNIER_TEST_SERVER_VAR", "not for trials", 1);
  ReplicaLaunch replica =
      Shell("master", 0, "echo \"server=${VERNIER_TEST_SERVER_VAR-unset} own=$OWN\"");
  replica.env["OWN"] = "the launch's";
  const v1::TrialRun run = MustSubmit(Trial({replica}));
  AwaitEnd(run, 0);
  unsetenv("VERNIER_TEST_SERVER_VAR");
  EXPECT_EQ(ReadFile(replica.log_path), "server=unset own=the launch's\n");
}

TEST_F(LocalBackendTest, DescribeReportsExitCodesAndSignalsAndRemembersThem) {
  const v1::TrialRun run = MustSubmit(
      Trial({Shell("master", 0, "exit 7"), Shell("worker", 0, "kill -USR1 $$; sleep 5")}));
  const v1::ReplicaStatus master = AwaitEnd(run, 0);
  const v1::ReplicaStatus worker = AwaitEnd(run, 1);
  EXPECT_EQ(master.state(), v1::ReplicaStatus::EXITED);
  EXPECT_EQ(master.exit_code(), 7);
  EXPECT_EQ(master.term_signal(), 0);
  EXPECT_EQ(worker.state(), v1::ReplicaStatus::EXITED);
  EXPECT_EQ(worker.term_signal(), SIGUSR1);

  // The children are reaped; Describe of the same (RUNNING) run still knows.
  absl::StatusOr<v1::TrialRun> again = backend_.Describe(run);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->replicas(0).state(), v1::ReplicaStatus::EXITED);
  EXPECT_EQ(again->replicas(0).exit_code(), 7);
  EXPECT_EQ(again->replicas(1).term_signal(), SIGUSR1);
  EXPECT_EQ(again->backend_handle(), run.backend_handle());
}

TEST_F(LocalBackendTest, DescribeKeepsEndedReplicasAsTheyAre) {
  const v1::TrialRun run = MustSubmit(Trial({Replica("master", 0, {"sleep", "30"})}));
  v1::TrialRun reported = run;
  reported.mutable_replicas(0)->set_state(v1::ReplicaStatus::LOST);
  absl::StatusOr<v1::TrialRun> described = backend_.Describe(reported);
  ASSERT_TRUE(described.ok()) << described.status();
  EXPECT_EQ(described->replicas(0).state(), v1::ReplicaStatus::LOST);
  described = backend_.Describe(run);
  ASSERT_TRUE(described.ok()) << described.status();
  EXPECT_EQ(described->replicas(0).state(), v1::ReplicaStatus::RUNNING);
}

TEST_F(LocalBackendTest, ExecFailureOfTheSecondReplicaKillsTheFirst) {
  vernier::testing::LogCapture log;
  const std::string missing = (dir_ / "no-such-trainer").string();
  absl::StatusOr<v1::TrialRun> run = backend_.Submit(
      Trial({Replica("master", 0, {"sleep", "30"}), Replica("worker", 1, {missing, "--x=1"})}));
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(run.status().message(), AllOf(HasSubstr("job=lr_sweep_001 trial=3 replica worker-1"),
                                            HasSubstr("cannot execute '" + missing + "'"),
                                            HasSubstr("No such file or directory")));

  const std::string lines = log.Text();
  std::smatch match;
  ASSERT_TRUE(std::regex_search(lines, match,
                                std::regex("job=lr_sweep_001 trial=3 study=lr_sweep_001_study "
                                           "attempt=1 started master-0 pid=([0-9]+)")))
      << lines;
  const pid_t first = std::stoi(match[1]);
  // Submit returns once the started replica is gone.
  EXPECT_TRUE(ProcessEnded(first)) << "pid " << first;
  EXPECT_THAT(lines, HasSubstr("job=lr_sweep_001 trial=3 study=lr_sweep_001_study attempt=1 "
                               "could not start worker-1: cannot execute"));
}

TEST_F(LocalBackendTest, NotExecutableProgramIsPermissionDenied) {
  const fs::path script = dir_ / "not-executable.sh";
  std::ofstream(script) << "#!/bin/sh\necho hi\n";
  fs::permissions(script, fs::perms::owner_read | fs::perms::owner_write);
  absl::StatusOr<v1::TrialRun> run = backend_.Submit(Trial({Replica("master", 0, {script})}));
  EXPECT_EQ(run.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(run.status().message(), AllOf(HasSubstr("cannot execute '" + script.string() + "'"),
                                            HasSubstr("Permission denied")));
}

TEST_F(LocalBackendTest, ProgramIsLookedUpInThePathOfTheReplica) {
  const fs::path bin = dir_ / "bin";
  fs::create_directories(bin);
  std::ofstream(bin / "vernier-test-tool") << "#!/bin/sh\necho tool ran with $1\n";
  fs::permissions(bin / "vernier-test-tool", fs::perms::owner_all);
  ReplicaLaunch replica = Replica("master", 0, {"vernier-test-tool", "--lr=0.1"});
  replica.env = {{"PATH", bin.string() + ":/usr/bin:/bin"}};
  const v1::TrialRun run = MustSubmit(Trial({replica}));
  EXPECT_EQ(AwaitEnd(run, 0).exit_code(), 0);
  EXPECT_EQ(ReadFile(replica.log_path), "tool ran with --lr=0.1\n");
}

TEST_F(LocalBackendTest, ProgramMissingFromPathIsNotFound) {
  absl::StatusOr<v1::TrialRun> run =
      backend_.Submit(Trial({Replica("master", 0, {"vernier-no-such-command"})}));
  EXPECT_EQ(run.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(run.status().message(),
              AllOf(HasSubstr("replica master-0"),
                    HasSubstr("cannot execute 'vernier-no-such-command': not found in PATH=")));
}

TEST_F(LocalBackendTest, RejectsInvalidLaunches) {
  struct Case {
    std::function<void(TrialLaunch&)> spoil;
    absl::StatusCode code;
    std::string message;
  };
  const std::vector<Case> cases = {
      {[](TrialLaunch& launch) { launch.replicas.clear(); }, absl::StatusCode::kInvalidArgument,
       "job=lr_sweep_001 trial=3: the launch has no replicas"},
      {[](TrialLaunch& launch) { launch.replicas[0].argv.clear(); },
       absl::StatusCode::kInvalidArgument, "replica master-0: argv: no program to run"},
      {[](TrialLaunch& launch) { launch.replicas[0].working_dir.clear(); },
       absl::StatusCode::kInvalidArgument, "replica master-0: working_dir is empty"},
      {[](TrialLaunch& launch) { launch.replicas[0].log_path.clear(); },
       absl::StatusCode::kInvalidArgument, "replica master-0: log_path is empty"},
      {[](TrialLaunch& launch) {
         launch.replicas[0].env = {{"A=B", "c"}};
       },
       absl::StatusCode::kInvalidArgument, "env: variable name 'A=B' is empty or contains '='"},
      {[this](TrialLaunch& launch) {
         std::ofstream(dir_ / "a-file") << "x";
         launch.replicas[0].working_dir = (dir_ / "a-file" / "sub").string();
       },
       absl::StatusCode::kFailedPrecondition,
       "cannot create working_dir '" + (dir_ / "a-file" / "sub").string() + "': Not a directory"},
      {[this](TrialLaunch& launch) {
         fs::create_directories(dir_ / "a-folder");
         launch.replicas[0].log_path = (dir_ / "a-folder").string();
       },
       absl::StatusCode::kFailedPrecondition,
       "cannot open log_path '" + (dir_ / "a-folder").string() + "': Is a directory"},
  };
  for (const Case& test_case : cases) {
    TrialLaunch launch = Trial({Replica("master", 0, {"/bin/true"})});
    test_case.spoil(launch);
    absl::StatusOr<v1::TrialRun> run = backend_.Submit(launch);
    EXPECT_EQ(run.status().code(), test_case.code) << test_case.message;
    EXPECT_THAT(run.status().message(), HasSubstr(test_case.message));
  }
}

TEST_F(LocalBackendTest, CancelOfAReplicaThatExitsOnTermIsQuick) {
  // The shell runs its trap between commands or during `wait`, not while a
  // foreground command runs.
  const v1::TrialRun run =
      MustSubmit(Trial({Shell("master", 0, "trap 'exit 3' TERM; sleep 30 & wait")}));
  ASSERT_TRUE(AwaitGroupRuns(run.replicas(0).pid(), "sleep"));
  const auto start = steady_clock::now();
  ASSERT_TRUE(backend_.Cancel(run, milliseconds(5000)).ok());
  EXPECT_LT(steady_clock::now() - start, milliseconds(2000));
  absl::StatusOr<v1::TrialRun> described = backend_.Describe(run);
  ASSERT_TRUE(described.ok()) << described.status();
  EXPECT_EQ(described->replicas(0).state(), v1::ReplicaStatus::EXITED);
  EXPECT_EQ(described->replicas(0).exit_code(), 3);
}

TEST_F(LocalBackendTest, CancelKillsAReplicaThatIgnoresTermAfterTheGrace) {
  const fs::path ready = dir_ / "ready";
  const v1::TrialRun run = MustSubmit(
      Trial({Shell("master", 0, "trap '' TERM; echo up > " + ready.string() + "; sleep 30")}));
  ASSERT_TRUE(AwaitFile(ready));
  const auto start = steady_clock::now();
  ASSERT_TRUE(backend_.Cancel(run, milliseconds(300)).ok());
  const auto elapsed = steady_clock::now() - start;
  EXPECT_GE(elapsed, milliseconds(300));
  EXPECT_LT(elapsed, milliseconds(3000));
  absl::StatusOr<v1::TrialRun> described = backend_.Describe(run);
  ASSERT_TRUE(described.ok()) << described.status();
  EXPECT_EQ(described->replicas(0).state(), v1::ReplicaStatus::EXITED);
  EXPECT_EQ(described->replicas(0).term_signal(), SIGKILL);
}

TEST_F(LocalBackendTest, CancelEndsTheWholeProcessGroup) {
  const fs::path grandchild_pid = dir_ / "grandchild.pid";
  const v1::TrialRun run = MustSubmit(
      Trial({Shell("master", 0, "sleep 30 & echo $! > " + grandchild_pid.string() + "; wait")}));
  ASSERT_TRUE(AwaitFile(grandchild_pid));
  ASSERT_TRUE(AwaitGroupRuns(run.replicas(0).pid(), "sleep"));
  const pid_t grandchild = std::stoi(ReadFile(grandchild_pid));
  to_kill_.push_back(grandchild);
  ASSERT_TRUE(ProcessRuns(grandchild));
  ASSERT_TRUE(backend_.Cancel(run, milliseconds(2000)).ok());
  EXPECT_TRUE(ProcessEnded(grandchild));
  EXPECT_EQ(AwaitEnd(run, 0).term_signal(), SIGTERM);
}

TEST_F(LocalBackendTest, CancelEndsWhatIsLeftOfTheGroupAfterTheReplicaExited) {
  const fs::path grandchild_pid = dir_ / "grandchild.pid";
  const v1::TrialRun run = MustSubmit(
      Trial({Shell("master", 0, "sleep 30 & echo $! > " + grandchild_pid.string() + "; exit 0")}));
  const v1::ReplicaStatus master = AwaitEnd(run, 0);
  EXPECT_EQ(master.state(), v1::ReplicaStatus::EXITED);
  const pid_t grandchild = std::stoi(ReadFile(grandchild_pid));
  to_kill_.push_back(grandchild);
  ASSERT_TRUE(AwaitGroupRuns(run.replicas(0).pid(), "sleep"));
  ASSERT_TRUE(ProcessRuns(grandchild));
  ASSERT_TRUE(backend_.Cancel(run, milliseconds(2000)).ok());
  EXPECT_TRUE(ProcessEnded(grandchild));
}

TEST_F(LocalBackendTest, ReplicaGetsTermEvenIfTheServerBlocksOrIgnoresIt) {
  sigset_t term, previous_mask;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &term, &previous_mask);
  struct sigaction ignore = {}, previous_action;
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGTERM, &ignore, &previous_action);
  const v1::TrialRun blocked = MustSubmit(Trial({Replica("master", 0, {"sleep", "30"})}, 4));
  sigaction(SIGTERM, &previous_action, nullptr);
  pthread_sigmask(SIG_SETMASK, &previous_mask, nullptr);

  ASSERT_TRUE(backend_.Cancel(blocked, milliseconds(5000)).ok());
  EXPECT_EQ(AwaitEnd(blocked, 0).term_signal(), SIGTERM);
}

TEST_F(LocalBackendTest, ReplicaOfAnEarlierServerIsRunningThenLost) {
  const pid_t sleeper = StartDetachedSleeper();
  ASSERT_GT(sleeper, 0);
  to_kill_.push_back(sleeper);
  v1::TrialRun run;
  run.set_trial_id(9);
  run.set_backend_handle(
      LocalHandle{.replicas = {{sleeper, StartTime(sleeper)}}, .job_id = "earlier_job"}.Format());
  v1::ReplicaStatus& replica = *run.add_replicas();
  replica.set_role("master");
  replica.set_state(v1::ReplicaStatus::RUNNING);
  replica.set_host(Hostname());
  replica.set_pid(sleeper);

  absl::StatusOr<v1::TrialRun> described = backend_.Describe(run);
  ASSERT_TRUE(described.ok()) << described.status();
  EXPECT_EQ(described->replicas(0).state(), v1::ReplicaStatus::RUNNING);

  ASSERT_EQ(kill(sleeper, SIGKILL), 0);
  EXPECT_EQ(AwaitEnd(run, 0).state(), v1::ReplicaStatus::LOST);
}

TEST_F(LocalBackendTest, CancelEndsAReplicaOfAnEarlierServer) {
  const pid_t sleeper = StartDetachedSleeper();
  ASSERT_GT(sleeper, 0);
  to_kill_.push_back(sleeper);
  v1::TrialRun run;
  run.set_backend_handle(
      LocalHandle{.replicas = {{sleeper, StartTime(sleeper)}}, .job_id = "earlier_job"}.Format());
  run.add_replicas()->set_pid(sleeper);
  ASSERT_TRUE(ProcessRuns(sleeper));
  ASSERT_TRUE(backend_.Cancel(run, milliseconds(2000)).ok());
  EXPECT_TRUE(ProcessEnded(sleeper));
}

TEST_F(LocalBackendTest, StaleHandleIsLostAndCancelLeavesTheProcessThatReusedThePidAlone) {
  const v1::TrialRun live = MustSubmit(Trial({Replica("master", 0, {"sleep", "30"})}));
  absl::StatusOr<LocalHandle> handle = LocalHandle::Parse(live.backend_handle());
  ASSERT_TRUE(handle.ok()) << handle.status();
  handle->replicas[0].start_time_ticks -= 1;
  v1::TrialRun stale = live;
  stale.set_backend_handle(handle->Format());

  absl::StatusOr<v1::TrialRun> described = backend_.Describe(stale);
  ASSERT_TRUE(described.ok()) << described.status();
  EXPECT_EQ(described->replicas(0).state(), v1::ReplicaStatus::LOST);

  const auto start = steady_clock::now();
  ASSERT_TRUE(backend_.Cancel(stale, milliseconds(300)).ok());
  EXPECT_LT(steady_clock::now() - start, milliseconds(300));
  EXPECT_TRUE(ProcessRuns(live.replicas(0).pid()));
  described = backend_.Describe(live);
  ASSERT_TRUE(described.ok()) << described.status();
  EXPECT_EQ(described->replicas(0).state(), v1::ReplicaStatus::RUNNING);
}

// A replica whose command line is an agent's for attempt `attempt` of
// trial 3 of study lr_sweep_001_study, as TrialLaunchBuilder writes it; a
// shell that stays (its command is not its last) runs in its place.
ReplicaLaunch AgentLike(ReplicaLaunch replica, const std::string& trial_dir, int attempt) {
  replica.argv = {"/bin/sh",
                  "-c",
                  "sleep 30; exit 0",
                  "vernier-agent",
                  "--server",
                  "127.0.0.1:1",
                  "--study",
                  "lr_sweep_001_study",
                  "--trial",
                  "3",
                  "--role",
                  replica.role,
                  "--index",
                  absl::StrCat(replica.index),
                  "--attempt",
                  absl::StrCat(attempt),
                  "--trial-dir",
                  trial_dir,
                  "--",
                  "python3",
                  "--trial",
                  "4"};
  return replica;
}

// What LaunchTrial stores before submitting: no handle, no processes.
v1::TrialRun StoredBeforeSubmit(const v1::TrialRun& submitted) {
  v1::TrialRun run = submitted;
  run.clear_backend_handle();
  for (v1::ReplicaStatus& replica : *run.mutable_replicas()) {
    replica.clear_pid();
    replica.clear_host();
    replica.set_state(v1::ReplicaStatus::PENDING);
  }
  return run;
}

TEST_F(LocalBackendTest, ALaterServerFindsTheAgentsOfARunStoredWithoutItsHandle) {
  const std::string trial_dir = (dir_ / "3").string();
  const v1::TrialRun submitted =
      MustSubmit(Trial({AgentLike(Replica("master", 0, {}), trial_dir, 1),
                        AgentLike(Replica("worker", 0, {}), trial_dir, 1)}));
  ASSERT_FALSE(submitted.backend_handle().empty());
  const v1::TrialRun stored = StoredBeforeSubmit(submitted);

  LocalBackend later;
  absl::StatusOr<std::optional<v1::TrialRun>> found =
      later.FindSubmitted("lr_sweep_001", "lr_sweep_001_study", stored);
  ASSERT_TRUE(found.ok()) << found.status();
  ASSERT_TRUE(found->has_value()) << "the agents of the run were not found";
  EXPECT_EQ((*found)->backend_handle(), submitted.backend_handle());
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ((*found)->replicas(i).pid(), submitted.replicas(i).pid());
    EXPECT_EQ((*found)->replicas(i).host(), Hostname());
    EXPECT_EQ((*found)->replicas(i).state(), v1::ReplicaStatus::RUNNING);
  }
  // The later server describes and ends them through the handle found.
  absl::StatusOr<v1::TrialRun> described = later.Describe(**found);
  ASSERT_TRUE(described.ok()) << described.status();
  EXPECT_EQ(described->replicas(1).state(), v1::ReplicaStatus::RUNNING);
  ASSERT_TRUE(later.Cancel(**found, milliseconds(2000)).ok());
  EXPECT_TRUE(PollUntil([&] { return ProcessEnded(submitted.replicas(0).pid()); }));
  EXPECT_TRUE(PollUntil([&] { return ProcessEnded(submitted.replicas(1).pid()); }));
}

TEST_F(LocalBackendTest, FindSubmittedTakesNoOtherAttemptStudyOrTrialDir) {
  const std::string trial_dir = (dir_ / "3").string();
  const v1::TrialRun submitted =
      MustSubmit(Trial({AgentLike(Replica("master", 0, {}), trial_dir, 1)}));
  const v1::TrialRun stored = StoredBeforeSubmit(submitted);
  LocalBackend later;

  v1::TrialRun other_attempt = stored;
  other_attempt.set_attempt(2);
  v1::TrialRun other_dir = stored;
  other_dir.set_trial_dir((dir_ / "4").string());
  v1::TrialRun other_role = stored;
  other_role.mutable_replicas(0)->set_role("chief");
  for (const auto& [what, run, study] :
       {std::tuple{"another attempt", other_attempt, "lr_sweep_001_study"},
        std::tuple{"another trial dir", other_dir, "lr_sweep_001_study"},
        std::tuple{"another role", other_role, "lr_sweep_001_study"},
        std::tuple{"another study", stored, "lr_sweep_002_study"}}) {
    absl::StatusOr<std::optional<v1::TrialRun>> found =
        later.FindSubmitted("lr_sweep_001", study, run);
    ASSERT_TRUE(found.ok()) << found.status();
    EXPECT_FALSE(found->has_value()) << what << " was taken for the run";
  }
}

TEST_F(LocalBackendTest, FindSubmittedFindsNothingUnlessEveryReplicasAgentRuns) {
  const std::string trial_dir = (dir_ / "3").string();
  const v1::TrialRun submitted =
      MustSubmit(Trial({AgentLike(Replica("master", 0, {}), trial_dir, 1),
                        AgentLike(Replica("worker", 0, {}), trial_dir, 1)}));
  const v1::TrialRun stored = StoredBeforeSubmit(submitted);
  ASSERT_EQ(kill(-submitted.replicas(1).pid(), SIGKILL), 0);
  EXPECT_NE(AwaitEnd(submitted, 1).state(), v1::ReplicaStatus::RUNNING);

  LocalBackend later;
  absl::StatusOr<std::optional<v1::TrialRun>> found =
      later.FindSubmitted("lr_sweep_001", "lr_sweep_001_study", stored);
  ASSERT_TRUE(found.ok()) << found.status();
  EXPECT_FALSE(found->has_value()) << "taken over with one of its replicas gone";
}

TEST_F(LocalBackendTest, FindSubmittedFailsNamingTheTrialWhenItCannotListProcesses) {
  LocalBackendOptions options;
  options.proc_root = "/nonexistent-proc-root";
  LocalBackend blind(options);
  v1::TrialRun run;
  run.set_trial_id(3);
  run.set_attempt(1);
  run.add_replicas()->set_role("master");
  absl::StatusOr<std::optional<v1::TrialRun>> found =
      blind.FindSubmitted("lr_sweep_001", "lr_sweep_001_study", run);
  EXPECT_EQ(found.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(found.status().message(),
              AllOf(HasSubstr("job=lr_sweep_001 trial=3 attempt=1: cannot look for its agents"),
                    HasSubstr("/nonexistent-proc-root")));
}

TEST_F(LocalBackendTest, RejectsRunsItCannotDescribe) {
  const v1::TrialRun live = MustSubmit(Trial({Replica("master", 0, {"sleep", "30"})}));
  struct Case {
    std::function<void(v1::TrialRun&)> spoil;
    absl::StatusCode code;
    std::string message;
  };
  const std::vector<Case> cases = {
      {[](v1::TrialRun& run) { run.set_backend_handle("slurm:123"); },
       absl::StatusCode::kInvalidArgument,
       "trial 3: backend_handle 'slurm:123' is not a local backend handle"},
      {[](v1::TrialRun& run) { run.add_replicas()->set_role("worker"); },
       absl::StatusCode::kInvalidArgument, "names 1 process(es) but the run has 2 replica(s)"},
      {[](v1::TrialRun& run) { run.mutable_replicas(0)->set_pid(1); },
       absl::StatusCode::kInvalidArgument, "master-0: pid 1 differs from pid"},
      {[](v1::TrialRun& run) { run.mutable_replicas(0)->set_host("other-host"); },
       absl::StatusCode::kFailedPrecondition,
       "job=lr_sweep_001 trial=3 master-0: runs on host 'other-host', which the local backend of "
       "host '" +
           Hostname() + "' cannot see"},
  };
  for (const Case& test_case : cases) {
    v1::TrialRun run = live;
    test_case.spoil(run);
    absl::StatusOr<v1::TrialRun> described = backend_.Describe(run);
    EXPECT_EQ(described.status().code(), test_case.code) << test_case.message;
    EXPECT_THAT(described.status().message(), HasSubstr(test_case.message));
    const absl::Status cancelled = backend_.Cancel(run, milliseconds(0));
    EXPECT_EQ(cancelled.code(), test_case.code) << test_case.message;
    EXPECT_THAT(cancelled.message(), HasSubstr(test_case.message));
  }
  EXPECT_TRUE(ProcessRuns(live.replicas(0).pid()));
}

TEST_F(LocalBackendTest, IsSafeToUseFromSeveralThreads) {
  constexpr int kThreads = 4;
  std::vector<int> exit_codes(kThreads, -1);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      absl::StatusOr<v1::TrialRun> run = backend_.Submit(
          Trial({Shell("master", t, absl::StrCat("sleep 0.", t, "; exit ", 10 + t))}, 100 + t));
      if (!run.ok()) return;
      PollUntil([&] {
        absl::StatusOr<v1::TrialRun> described = backend_.Describe(*run);
        if (!described.ok()) return true;
        if (described->replicas(0).state() != v1::ReplicaStatus::EXITED) return false;
        exit_codes[t] = described->replicas(0).exit_code();
        return true;
      });
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_THAT(exit_codes, ::testing::ElementsAre(10, 11, 12, 13));
}

}  // namespace
}  // namespace vernier::scheduler
