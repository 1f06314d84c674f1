#include "scheduler/local/process_table.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace vernier::scheduler {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kStatTail[] =
    "S 4321 1234 1200 34816 1234 4194560 1207 0 0 0 5 2 0 0 20 0 1 0 98765432 10842112 "
    "864 18446744073709551615 1 1 0 0 0 0 0 0 65536 0 0 0 17 1 0 0 0 0 0";

TEST(ProcessTableTest, ParsesACommandHoldingParenthesesAndSpaces) {
  const std::string line = std::string("1234 (evil) (name ) x) ") + kStatTail + "\n";
  absl::StatusOr<ProcessStat> stat = ProcessTable::ParseStat(line);
  ASSERT_TRUE(stat.ok()) << stat.status();
  EXPECT_EQ(stat->pid, 1234);
  EXPECT_EQ(stat->comm, "evil) (name ) x");
  EXPECT_EQ(stat->state, 'S');
  EXPECT_EQ(stat->parent_pid, 4321);
  EXPECT_EQ(stat->process_group, 1234);
  EXPECT_EQ(stat->session, 1200);
  EXPECT_EQ(stat->start_time_ticks, 98765432u);
  EXPECT_FALSE(stat->HasEnded());
}

TEST(ProcessTableTest, ZombieHasEnded) {
  std::string tail = kStatTail;
  tail[0] = 'Z';
  absl::StatusOr<ProcessStat> stat = ProcessTable::ParseStat("7 (sh) " + tail);
  ASSERT_TRUE(stat.ok()) << stat.status();
  EXPECT_TRUE(stat->HasEnded());
}

TEST(ProcessTableTest, RejectsALineWithoutCommand) {
  absl::StatusOr<ProcessStat> stat = ProcessTable::ParseStat("1234 sleep S 1 2 3");
  EXPECT_EQ(stat.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(stat.status().message(), HasSubstr("no '(command)'"));
}

TEST(ProcessTableTest, RejectsALineWithoutPid) {
  absl::StatusOr<ProcessStat> stat = ProcessTable::ParseStat(std::string("x (sleep) ") + kStatTail);
  EXPECT_EQ(stat.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(stat.status().message(), HasSubstr("no pid before the command"));
}

TEST(ProcessTableTest, RejectsATruncatedLine) {
  absl::StatusOr<ProcessStat> stat = ProcessTable::ParseStat("1234 (sleep) S 1 1234 1234 0");
  EXPECT_EQ(stat.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(stat.status().message(), HasSubstr("only 5 fields after the command, need 20"));
}

TEST(ProcessTableTest, RejectsANonNumericStartTime) {
  std::string tail = kStatTail;
  tail.replace(tail.find("98765432"), 8, "9876543x");
  absl::StatusOr<ProcessStat> stat = ProcessTable::ParseStat("1234 (sleep) " + tail);
  EXPECT_EQ(stat.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(stat.status().message(), HasSubstr("start time is not a number"));
}

TEST(ProcessTableTest, RejectsANonNumericProcessGroup) {
  std::string tail = kStatTail;
  tail.replace(tail.find("1234"), 4, "grp!");
  absl::StatusOr<ProcessStat> stat = ProcessTable::ParseStat("1234 (sleep) " + tail);
  EXPECT_EQ(stat.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(stat.status().message(), HasSubstr("process group"));
}

TEST(ProcessTableTest, StatsThisProcess) {
  absl::StatusOr<ProcessStat> stat = ProcessTable().Stat(getpid());
  ASSERT_TRUE(stat.ok()) << stat.status();
  EXPECT_EQ(stat->pid, getpid());
  EXPECT_EQ(stat->parent_pid, getppid());
  EXPECT_EQ(stat->process_group, getpgrp());
  EXPECT_EQ(stat->session, getsid(0));
  EXPECT_GT(stat->start_time_ticks, 0u);
  EXPECT_FALSE(stat->HasEnded());
  // The start time does not change: it names this process.
  EXPECT_EQ(ProcessTable().Stat(getpid())->start_time_ticks, stat->start_time_ticks);
}

TEST(ProcessTableTest, SeesAnUnreapedChildAsEndedAndAReapedOneAsGone) {
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) _exit(0);
  const ProcessTable table;
  // Until reaped the child stays a zombie.
  absl::StatusOr<ProcessStat> stat = table.Stat(child);
  for (int i = 0; i < 500 && stat.ok() && !stat->HasEnded(); ++i) {
    usleep(2000);
    stat = table.Stat(child);
  }
  ASSERT_TRUE(stat.ok()) << stat.status();
  EXPECT_TRUE(stat->HasEnded());
  ASSERT_EQ(waitpid(child, nullptr, 0), child);

  absl::StatusOr<ProcessStat> gone = table.Stat(child);
  EXPECT_EQ(gone.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(gone.status().message(), HasSubstr("no process with pid"));
}

TEST(ProcessTableTest, RejectsANonPositivePid) {
  absl::StatusOr<ProcessStat> stat = ProcessTable().Stat(0);
  EXPECT_EQ(stat.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(stat.status().message(), HasSubstr("invalid pid 0"));
}

TEST(ProcessTableTest, ListsTheLiveMembersOfAGroup) {
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    setpgid(0, 0);
    pause();
    _exit(0);
  }
  setpgid(child, child);  // either side may win the race; both set the same
  const ProcessTable table;
  absl::StatusOr<std::vector<pid_t>> members = table.LiveMembersOfGroup(child);
  ASSERT_TRUE(members.ok()) << members.status();
  EXPECT_EQ(*members, std::vector<pid_t>{child});

  absl::StatusOr<std::vector<pid_t>> ours = table.LiveMembersOfGroup(getpgrp());
  ASSERT_TRUE(ours.ok()) << ours.status();
  EXPECT_THAT(*ours, Contains(getpid()));
  EXPECT_THAT(*ours, Not(Contains(child)));

  kill(child, SIGKILL);
  // A zombie is no live member.
  for (int i = 0; i < 500; ++i) {
    members = table.LiveMembersOfGroup(child);
    if (members.ok() && members->empty()) break;
    usleep(2000);
  }
  ASSERT_TRUE(members.ok()) << members.status();
  EXPECT_TRUE(members->empty());
  ASSERT_EQ(waitpid(child, nullptr, 0), child);
}

TEST(ProcessTableTest, ListsASessionLeaderWithItsLongCommandLineAndLeavesOutItsZombie) {
  // A word longer than one read of /proc, an empty one and one with a space.
  const std::string long_word(10000, 'x');
  int ready[2];
  ASSERT_EQ(pipe2(ready, O_CLOEXEC), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    setsid();
    execl("/bin/sh", "/bin/sh", "-c", "sleep 30; exit 0", long_word.c_str(), "", "two words",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  close(ready[1]);
  // The pipe's write end closes on exec.
  char byte;
  ASSERT_EQ(read(ready[0], &byte, 1), 0);
  close(ready[0]);
  const ProcessTable table;
  absl::StatusOr<std::vector<std::string>> argv = table.CommandLine(child);
  ASSERT_TRUE(argv.ok()) << argv.status();
  ASSERT_EQ(argv->size(), 6u);
  EXPECT_EQ((*argv)[2], "sleep 30; exit 0");
  EXPECT_EQ((*argv)[3].size(), long_word.size());
  EXPECT_EQ((*argv)[3], long_word);
  EXPECT_EQ((*argv)[4], "");
  EXPECT_EQ((*argv)[5], "two words");

  absl::StatusOr<std::vector<ProcessStat>> leaders = table.LiveSessionLeaders();
  ASSERT_TRUE(leaders.ok()) << leaders.status();
  const auto leads = [&](pid_t pid) {
    return std::any_of(leaders->begin(), leaders->end(),
                       [pid](const ProcessStat& leader) { return leader.pid == pid; });
  };
  EXPECT_TRUE(leads(child));

  // Its whole group: the shell's sleep would hold the test's output open.
  kill(-child, SIGKILL);
  for (int i = 0; i < 500 && leads(child); ++i) {
    usleep(2000);
    leaders = table.LiveSessionLeaders();
    ASSERT_TRUE(leaders.ok()) << leaders.status();
  }
  EXPECT_FALSE(leads(child)) << "a zombie leads no live session";
  EXPECT_EQ(table.CommandLine(child).status().code(), absl::StatusCode::kNotFound);
  ASSERT_EQ(waitpid(child, nullptr, 0), child);
  EXPECT_EQ(table.CommandLine(child).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(table.CommandLine(0).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(ProcessTableTest, ReportsAMissingProcRoot) {
  const ProcessTable table("/nonexistent-proc-root");
  absl::StatusOr<std::vector<pid_t>> members = table.LiveMembersOfGroup(1);
  EXPECT_EQ(members.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(members.status().message(), HasSubstr("cannot list /nonexistent-proc-root"));
  absl::StatusOr<std::vector<ProcessStat>> leaders = table.LiveSessionLeaders();
  EXPECT_EQ(leaders.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(leaders.status().message(), HasSubstr("cannot list /nonexistent-proc-root"));
}

}  // namespace
}  // namespace vernier::scheduler
