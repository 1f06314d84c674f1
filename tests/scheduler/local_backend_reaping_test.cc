// LocalBackend reaps every replica it started once it ends, also those whose
// runs are never described again (their agent reported the exit): the
// server once collected a zombie per finished trial.
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "scheduler/local/local_backend.h"
#include "scheduler/local/process_table.h"
#include "tests/support/subprocess.h"

namespace vernier::scheduler {
namespace {

// 'Z' while a zombie, '-' once reaped (gone from /proc).
char State(pid_t pid) {
  absl::StatusOr<ProcessStat> stat = ProcessTable().Stat(pid);
  return stat.ok() ? stat->state : '-';
}

bool Await(const std::function<bool()>& condition) {
  for (int i = 0; i < 1000 && !condition(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return condition();
}

TrialLaunch Launch(const std::string& dir, int64_t trial_id, const std::string& script) {
  TrialLaunch launch;
  launch.job_id = "reaping";
  launch.study_name = "reaping";
  launch.trial_id = trial_id;
  launch.trial_dir = dir + "/" + std::to_string(trial_id);
  ReplicaLaunch replica;
  replica.role = "master";
  replica.argv = {"/bin/sh", "-c", script};
  replica.working_dir = launch.trial_dir;
  replica.log_path = launch.trial_dir + "/logs/master-0.log";
  launch.replicas.push_back(replica);
  return launch;
}

TEST(LocalBackendReapingTest, AReplicaThatEndedIsReapedWithoutDescribingItsRun) {
  testing::TempDir dir;
  LocalBackend backend;
  absl::StatusOr<v1::TrialRun> first = backend.Submit(Launch(dir.path(), 1, "exit 0"));
  ASSERT_TRUE(first.ok()) << first.status();
  const pid_t pid = first->replicas(0).pid();
  ASSERT_TRUE(Await([&] { return State(pid) == 'Z' || State(pid) == '-'; }));

  // The next trial's launch reaps the first, whose run nobody describes.
  absl::StatusOr<v1::TrialRun> second = backend.Submit(Launch(dir.path(), 2, "exit 0"));
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(State(pid), '-') << "pid " << pid << " is still a zombie";
  const pid_t second_pid = second->replicas(0).pid();
  ASSERT_TRUE(Await([&] { return State(second_pid) == 'Z' || State(second_pid) == '-'; }));
  ASSERT_TRUE(backend.Describe(*first).ok());
  EXPECT_EQ(State(second_pid), '-') << "pid " << second_pid << " is still a zombie";
}

}  // namespace
}  // namespace vernier::scheduler
