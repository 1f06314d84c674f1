#include "trainer-agent/process_supervisor.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "tests/support/subprocess.h"
#include "tests/trainer-agent/captured_log.h"

namespace vernier::agent {
namespace {

using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

std::vector<std::string> Shell(const std::string& script) { return {"/bin/sh", "-c", script}; }

using ::vernier::testing::ReadFile;

// Gone, or a zombie nobody reaped yet: either way no longer running.
bool Ended(pid_t pid) {
  const std::string stat = ReadFile(absl::StrCat("/proc/", pid, "/stat"));
  return stat.empty() || stat.find(") Z ") != std::string::npos;
}

bool EndsWithin(pid_t pid, absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  while (!Ended(pid) && absl::Now() < deadline) absl::SleepFor(absl::Milliseconds(20));
  return Ended(pid);
}

class ProcessSupervisorTest : public ::testing::Test {
 protected:
  ProcessSupervisor::OutputCallback Collect() {
    return [this](std::string_view chunk) { output_.append(chunk); };
  }

  // Pumps output until it contains `text` or the deadline passes.
  bool PumpUntilOutputHas(ProcessSupervisor& supervisor, const std::string& text,
                          absl::Duration timeout = absl::Seconds(10)) {
    const absl::Time deadline = absl::Now() + timeout;
    while (output_.find(text) == std::string::npos && absl::Now() < deadline) {
      supervisor.PumpOutput(absl::Milliseconds(50));
    }
    return output_.find(text) != std::string::npos;
  }

  testing::CapturedLog log_;
  std::string output_;
};

TEST_F(ProcessSupervisorTest, ReportsTheExitCode) {
  ProcessSupervisor supervisor(Shell("echo hello; exit 7"), {}, Collect(), log_.logger());
  ASSERT_TRUE(supervisor.Start().ok());
  const ProcessExit exit = supervisor.Wait();
  EXPECT_EQ(exit.exit_code, 7);
  EXPECT_EQ(exit.term_signal, 0);
  EXPECT_EQ(output_, "hello\n");
  EXPECT_FALSE(supervisor.running());
  EXPECT_EQ(supervisor.TryWait()->exit_code, 7) << "the exit stays known";
}

TEST_F(ProcessSupervisorTest, ReportsADeathBySignal) {
  ProcessSupervisor supervisor(Shell("kill -SEGV $$"), {}, Collect(), log_.logger());
  ASSERT_TRUE(supervisor.Start().ok());
  const ProcessExit exit = supervisor.Wait();
  EXPECT_EQ(exit.term_signal, SIGSEGV);
  EXPECT_EQ(exit.exit_code, 128 + SIGSEGV);
}

TEST_F(ProcessSupervisorTest, ExecFailureExitsWith127AndNamesTheProgram) {
  for (const std::string program : {"/nonexistent/trainer", "vernier-no-such-program"}) {
    output_.clear();
    ProcessSupervisor supervisor({program, "--flag"}, {}, Collect(), log_.logger());
    ASSERT_TRUE(supervisor.Start().ok());
    const ProcessExit exit = supervisor.Wait();
    EXPECT_EQ(exit.exit_code, 127);
    EXPECT_EQ(exit.term_signal, 0);
    const std::string message =
        absl::StrCat("vernier-agent: cannot execute '", program, "': No such file or directory");
    EXPECT_THAT(output_, HasSubstr(message));
    EXPECT_THAT(supervisor.OutputTail(), HasSubstr(message));
    EXPECT_THAT(log_.Text(), HasSubstr(absl::StrCat("error: ", message, " (exit code 127)")));
  }
}

TEST_F(ProcessSupervisorTest, NonExecutableFileIsAnExecFailure) {
  char directory[] = "/tmp/vernier_supervisor_test_XXXXXX";
  ASSERT_NE(mkdtemp(directory), nullptr);
  const std::string script = absl::StrCat(directory, "/train.sh");
  {
    std::ofstream out(script);
    out << "echo should not run\n";
  }
  ASSERT_EQ(chmod(script.c_str(), 0644), 0);
  ProcessSupervisor supervisor({script}, {}, Collect(), log_.logger());
  ASSERT_TRUE(supervisor.Start().ok());
  EXPECT_EQ(supervisor.Wait().exit_code, 127);
  EXPECT_THAT(output_, HasSubstr(absl::StrCat("cannot execute '", script, "': Permission denied")));
  EXPECT_THAT(output_, Not(HasSubstr("should not run")));
  std::filesystem::remove_all(directory);
}

TEST_F(ProcessSupervisorTest, StartErrors) {
  ProcessSupervisor empty({}, {}, Collect(), log_.logger());
  const absl::Status status = empty.Start();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("empty command: nothing to run"));

  ProcessSupervisor twice(Shell("exit 0"), {}, Collect(), log_.logger());
  ASSERT_TRUE(twice.Start().ok());
  const absl::Status again = twice.Start();
  EXPECT_EQ(again.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(again.message(), HasSubstr("program '/bin/sh' already started as pid"));
  twice.Wait();
}

TEST_F(ProcessSupervisorTest, StopEndsAProgramThatHandlesSigterm) {
  ProcessSupervisor supervisor(
      Shell("trap 'echo got-term; exit 3' TERM; echo ready; while :; do sleep 0.05; done"), {},
      Collect(), log_.logger());
  ASSERT_TRUE(supervisor.Start().ok());
  ASSERT_TRUE(PumpUntilOutputHas(supervisor, "ready\n"));
  const ProcessExit exit = supervisor.Stop(absl::Seconds(10));
  EXPECT_EQ(exit.exit_code, 3);
  EXPECT_EQ(exit.term_signal, 0);
  EXPECT_THAT(output_, HasSubstr("got-term"));
  EXPECT_THAT(log_.Text(), Not(HasSubstr("SIGKILL to group")));
}

TEST_F(ProcessSupervisorTest, StopKillsAProgramIgnoringSigtermAfterTheGracePeriod) {
  ProcessSupervisor supervisor(Shell("trap '' TERM; echo ready; while :; do sleep 0.05; done"), {},
                               Collect(), log_.logger());
  ASSERT_TRUE(supervisor.Start().ok());
  ASSERT_TRUE(PumpUntilOutputHas(supervisor, "ready\n"));
  const absl::Time start = absl::Now();
  const ProcessExit exit = supervisor.Stop(absl::Milliseconds(400));
  const absl::Duration took = absl::Now() - start;
  EXPECT_EQ(exit.term_signal, SIGKILL);
  EXPECT_EQ(exit.exit_code, 128 + SIGKILL);
  EXPECT_GE(took, absl::Milliseconds(400));
  EXPECT_LT(took, absl::Seconds(5));
  EXPECT_THAT(log_.Text(), HasSubstr("did not exit within 400ms of SIGTERM; sending SIGKILL"));
}

TEST_F(ProcessSupervisorTest, RunsInItsOwnProcessGroup) {
  ProcessSupervisor supervisor(Shell("echo ready; sleep 30"), {}, Collect(), log_.logger());
  ASSERT_TRUE(supervisor.Start().ok());
  ASSERT_TRUE(PumpUntilOutputHas(supervisor, "ready\n"));
  EXPECT_EQ(getpgid(supervisor.pid()), supervisor.pid());
  EXPECT_NE(getpgid(supervisor.pid()), getpgrp());
  // The group signal reaches the sleep too, so this ends at once.
  const ProcessExit exit = supervisor.Stop(absl::Seconds(10));
  EXPECT_EQ(exit.term_signal, SIGTERM);
}

TEST_F(ProcessSupervisorTest, LeftoversOfTheGroupDoNotOutliveTheProgram) {
  ProcessSupervisor supervisor(Shell("(sleep 20; echo late) & echo started; exit 0"), {}, Collect(),
                               log_.logger());
  ASSERT_TRUE(supervisor.Start().ok());
  const absl::Time start = absl::Now();
  const ProcessExit exit = supervisor.Wait();
  EXPECT_EQ(exit.exit_code, 0);
  EXPECT_LT(absl::Now() - start, absl::Seconds(5)) << "waited for the background job's pipe";
  EXPECT_EQ(output_, "started\n");
}

TEST_F(ProcessSupervisorTest, PassesEveryByteAndKeepsTheTail) {
  ProcessSupervisor supervisor(
      Shell("i=1; while [ $i -le 120 ]; do echo line $i; i=$((i+1)); done; "
            "echo to-stderr >&2; printf partial"),
      {}, Collect(), log_.logger());
  ASSERT_TRUE(supervisor.Start().ok());
  EXPECT_EQ(supervisor.Wait().exit_code, 0);
  std::string expected;
  for (int i = 1; i <= 120; ++i) absl::StrAppend(&expected, "line ", i, "\n");
  absl::StrAppend(&expected, "to-stderr\npartial");
  EXPECT_EQ(output_, expected);
  const std::string tail = supervisor.OutputTail();
  EXPECT_THAT(tail, StartsWith("line 73\nline 74\n"));
  EXPECT_THAT(tail, EndsWith("line 120\nto-stderr\npartial\n"));
  EXPECT_EQ(std::count(tail.begin(), tail.end(), '\n'), 50);
}

TEST_F(ProcessSupervisorTest, TailCapsLongLines) {
  ProcessSupervisor supervisor(Shell("head -c 5000 /dev/zero | tr '\\0' 'x'; echo; echo after"), {},
                               Collect(), log_.logger());
  ASSERT_TRUE(supervisor.Start().ok());
  supervisor.Wait();
  EXPECT_EQ(output_.size(), 5000u + 7u) << "the output itself is not capped";
  EXPECT_EQ(supervisor.OutputTail(),
            absl::StrCat(std::string(OutputTail::kDefaultMaxLineBytes, 'x'),
                         " [line truncated]\nafter\n"));
}

TEST_F(ProcessSupervisorTest, EnvironmentIsInheritedWithAdditionsOnTop) {
  setenv("VERNIER_TEST_INHERITED", "inherited", 1);
  setenv("VERNIER_TEST_REPLACED", "old", 1);
  ProcessSupervisor supervisor(
      Shell("echo \"$VERNIER_TEST_INHERITED $VERNIER_TEST_REPLACED $CLOUD_ML_TRIAL_ID\"; "
            "env | grep -c '^VERNIER_TEST_REPLACED='"),
      {{"VERNIER_TEST_REPLACED", "new"}, {"CLOUD_ML_TRIAL_ID", "42"}}, Collect(), log_.logger());
  ASSERT_TRUE(supervisor.Start().ok());
  EXPECT_EQ(supervisor.Wait().exit_code, 0);
  EXPECT_EQ(output_, "inherited new 42\n1\n");
  unsetenv("VERNIER_TEST_INHERITED");
  unsetenv("VERNIER_TEST_REPLACED");
}

TEST_F(ProcessSupervisorTest, SignalMaskAndIgnoredSignalsAreNotInherited) {
  sigset_t blocked, previous;
  sigemptyset(&blocked);
  sigaddset(&blocked, SIGTERM);
  ASSERT_EQ(pthread_sigmask(SIG_BLOCK, &blocked, &previous), 0);
  struct sigaction ignore {
  }, old_action{};
  ignore.sa_handler = SIG_IGN;
  ASSERT_EQ(sigaction(SIGINT, &ignore, &old_action), 0);
  ProcessSupervisor supervisor({"grep", "-E", "^Sig(Blk|Ign)", "/proc/self/status"}, {}, Collect(),
                               log_.logger());
  const absl::Status started = supervisor.Start();
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  sigaction(SIGINT, &old_action, nullptr);
  ASSERT_TRUE(started.ok());
  EXPECT_EQ(supervisor.Wait().exit_code, 0);
  EXPECT_EQ(output_, "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n");
}

TEST_F(ProcessSupervisorTest, DestructorKillsARunningProgram) {
  pid_t pid = 0;
  {
    ProcessSupervisor supervisor(Shell("echo ready; sleep 30"), {}, Collect(), log_.logger());
    ASSERT_TRUE(supervisor.Start().ok());
    ASSERT_TRUE(PumpUntilOutputHas(supervisor, "ready\n"));
    pid = supervisor.pid();
  }
  EXPECT_EQ(kill(pid, 0), -1);
  EXPECT_EQ(errno, ESRCH);
}

class ProcessTreeStopTest : public ProcessSupervisorTest {
 protected:
  pid_t PidFrom(const std::string& name) {
    const std::string text = ReadFile(dir_.path() + "/" + name);
    return text.empty() ? -1 : std::stoi(text);
  }

  vernier::testing::TempDir dir_;
};

TEST_F(ProcessTreeStopTest, StopReachesProcessesInTheirOwnSessionsEvenIfTheyIgnoreSigterm) {
  // As torchrun's workers: setsid() puts them out of the trainer's group.
  ProcessSupervisor supervisor(
      Shell(absl::StrCat("setsid sh -c 'echo $$ > ", dir_.path(), "/plain.pid; exec sleep 60' & ",
                         "setsid sh -c 'trap \"\" TERM; echo $$ > ", dir_.path(),
                         "/stubborn.pid; while :; do sleep 0.1; done' & ", "while [ ! -s ",
                         dir_.path(), "/plain.pid ] || [ ! -s ", dir_.path(),
                         "/stubborn.pid ]; do sleep 0.05; done; echo ready; wait")),
      {}, Collect(), log_.logger());
  ASSERT_TRUE(supervisor.Start().ok());
  ASSERT_TRUE(PumpUntilOutputHas(supervisor, "ready\n"));
  const pid_t plain = PidFrom("plain.pid");
  const pid_t stubborn = PidFrom("stubborn.pid");
  ASSERT_GT(plain, 0);
  ASSERT_GT(stubborn, 0);
  ASSERT_NE(getsid(plain), getsid(supervisor.pid()));
  ASSERT_NE(getpgid(stubborn), supervisor.pid());

  const ProcessExit exit = supervisor.Stop(absl::Milliseconds(700));
  EXPECT_EQ(exit.term_signal, SIGTERM);
  EXPECT_TRUE(EndsWithin(plain, absl::Seconds(5))) << "setsid child " << plain << " survived";
  EXPECT_TRUE(EndsWithin(stubborn, absl::Seconds(5)))
      << "setsid child " << stubborn << " ignoring SIGTERM survived";
  const std::string log = log_.Text();
  EXPECT_THAT(log, HasSubstr(absl::StrCat("sent signal 15 to pid ", plain,
                                          ", which the program started outside its group")));
  EXPECT_THAT(log, HasSubstr("processes started by the program did not exit within 700ms of "
                             "SIGTERM; sending SIGKILL"));
}

TEST_F(ProcessTreeStopTest, OrphansInTheirOwnSessionDoNotOutliveTheProgram) {
  // The intermediate shell exits at once, so the worker is orphaned and comes
  // to the supervisor (a child subreaper) instead of init.
  ProcessSupervisor supervisor(
      Shell(absl::StrCat("sh -c 'setsid sh -c \"echo \\$\\$ > ", dir_.path(),
                         "/orphan.pid; exec sleep 60\" &'; while [ ! -s ", dir_.path(),
                         "/orphan.pid ]; do sleep 0.05; done; echo started; exit 0")),
      {}, Collect(), log_.logger());
  ASSERT_TRUE(supervisor.Start().ok());
  ASSERT_TRUE(PumpUntilOutputHas(supervisor, "started\n"));
  const pid_t orphan = PidFrom("orphan.pid");
  ASSERT_GT(orphan, 0);
  const std::string stat = ReadFile(absl::StrCat("/proc/", orphan, "/stat"));
  EXPECT_THAT(stat, HasSubstr(absl::StrCat(" ", getpid(), " "))) << "not reparented to us";
  EXPECT_EQ(supervisor.Wait().exit_code, 0);
  EXPECT_TRUE(EndsWithin(orphan, absl::Seconds(5))) << "orphan " << orphan << " survived";
}

}  // namespace
}  // namespace vernier::agent
