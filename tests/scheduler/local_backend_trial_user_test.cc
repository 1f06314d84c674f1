// The local backend under `vernier serve --trial-user`: replicas run as the
// trial user, in a job dir given to it, and reach nothing else of root's.
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/local/local_backend.h"
#include "tests/support/subprocess.h"

namespace vernier::scheduler {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

class LocalBackendTrialUserTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "running replicas as another user needs root";
    absl::StatusOr<TrialUser> user = TrialUser::Lookup("nobody", 0);
    if (!user.ok()) GTEST_SKIP() << user.status();
    user_ = *user;
    ASSERT_EQ(chmod(dir_.path().c_str(), 0711), 0);
    LocalBackendOptions options;
    options.trial_user = user_;
    backend_.emplace(options);
  }

  // Trial `trial_id` under JOB_DIR with one replica running `argv` (in its
  // trial folder unless `working_dir` is given).
  TrialLaunch Launch(int64_t trial_id, std::vector<std::string> argv,
                     const std::string& working_dir = "") {
    TrialLaunch launch;
    launch.job_id = "separated";
    launch.study_name = "separated";
    launch.trial_id = trial_id;
    launch.job_dir = job_dir_;
    launch.trial_dir = absl::StrCat(job_dir_, "/", trial_id);
    ReplicaLaunch replica;
    replica.role = "master";
    replica.argv = std::move(argv);
    replica.env = {{"PATH", "/usr/bin:/bin"}, {"HOME", "/root"}, {"USER", "root"}};
    replica.working_dir = working_dir.empty() ? launch.trial_dir : working_dir;
    replica.log_path = launch.trial_dir + "/logs/master-0.log";
    launch.replicas = {replica};
    return launch;
  }

  // Runs `script` as the only replica of trial 1 and waits for it to end.
  v1::ReplicaStatus Run(const std::string& script) {
    const TrialLaunch launch = Launch(1, {"/bin/sh", "-c", script});
    absl::StatusOr<v1::TrialRun> run = backend_->Submit(launch);
    EXPECT_TRUE(run.ok()) << run.status();
    if (!run.ok()) return {};
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < deadline) {
      absl::StatusOr<v1::TrialRun> described = backend_->Describe(*run);
      EXPECT_TRUE(described.ok()) << described.status();
      if (!described.ok()) return {};
      if (described->replicas(0).state() != v1::ReplicaStatus::RUNNING) {
        return described->replicas(0);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ADD_FAILURE() << "the replica still runs";
    return {};
  }

  std::string Log() const { return testing::ReadFile(job_dir_ + "/1/logs/master-0.log"); }

  testing::TempDir dir_;
  std::string job_dir_ = dir_.path() + "/job";
  TrialUser user_;
  std::optional<LocalBackend> backend_;
};

TEST_F(LocalBackendTrialUserTest, TheReplicaRunsAsTheTrialUserWithItsGroupsAndHome) {
  const v1::ReplicaStatus ended =
      Run("echo \"uid=$(id -u) gid=$(id -g) groups=$(id -G) home=$HOME user=$USER\"");
  EXPECT_EQ(ended.exit_code(), 0) << Log();
  std::string groups;
  for (gid_t group : user_.groups) absl::StrAppend(&groups, groups.empty() ? "" : " ", group);
  EXPECT_THAT(Log(), HasSubstr(absl::StrCat("uid=", user_.uid, " gid=", user_.gid, " groups=",
                                            groups, " home=", user_.home, " user=nobody")));
}

TEST_F(LocalBackendTrialUserTest, ItWorksInTheJobDirAndReadsNothingElseOfRoots) {
  // What the server made in the job dir before the trial (a package
  // snapshot, the agent's credential), and a secret of root's beside it
  // that a link in the job dir points at.
  fs::create_directories(job_dir_ + "/.vernier-source");
  std::ofstream(job_dir_ + "/.vernier-source/task.py") << "print('hi')\n";
  fs::create_directories(job_dir_ + "/1");
  std::ofstream(job_dir_ + "/1/.agent-token-0") << "agent-token\n";
  const std::string secret = dir_.path() + "/admin.token";
  std::ofstream(secret) << "root-secret\n";
  ASSERT_EQ(chmod(secret.c_str(), 0600), 0);
  fs::create_symlink(secret, job_dir_ + "/1/admin.link");

  const v1::ReplicaStatus ended =
      Run("cat ../.vernier-source/task.py .agent-token-0; echo written > output.txt && echo wrote; "
          "cat admin.link || echo secret-denied; ls .. >/dev/null 2>&1 && echo listed-job-dir; "
          "ls " +
          dir_.path() + " >/dev/null 2>&1 || echo cannot-list-above");
  EXPECT_EQ(ended.exit_code(), 0) << Log();
  const std::string log = Log();
  EXPECT_THAT(log, HasSubstr("print('hi')\nagent-token\nwrote\n"));
  EXPECT_THAT(log, HasSubstr("secret-denied"));
  EXPECT_THAT(log, Not(HasSubstr("root-secret")));
  EXPECT_THAT(log, HasSubstr("listed-job-dir"));
  EXPECT_THAT(log, HasSubstr("cannot-list-above"));
  struct stat info = {};
  ASSERT_EQ(stat(secret.c_str(), &info), 0);
  EXPECT_EQ(info.st_uid, 0u);
  ASSERT_EQ(stat((job_dir_ + "/1/output.txt").c_str(), &info), 0);
  EXPECT_EQ(info.st_uid, user_.uid);
}

TEST_F(LocalBackendTrialUserTest, AWorkingDirTheUserCannotEnterFailsTheLaunchNamingIt) {
  const std::string closed = dir_.path() + "/closed";
  fs::create_directories(closed);
  ASSERT_EQ(chmod(closed.c_str(), 0700), 0);
  const TrialLaunch launch = Launch(2, {"/bin/true"}, closed);
  absl::StatusOr<v1::TrialRun> run = backend_->Submit(launch);
  EXPECT_EQ(run.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(run.status().message(), HasSubstr("cannot enter working_dir '" + closed + "'"));
}

}  // namespace
}  // namespace vernier::scheduler
