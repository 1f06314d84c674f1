#include "scheduler/local/job_dir_handover.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/subprocess.h"

namespace vernier::scheduler {
namespace {

namespace fs = std::filesystem;

constexpr uid_t kTrialUid = 54321;
constexpr gid_t kTrialGid = 54322;
constexpr uid_t kSomeoneElse = 54323;

const TrialUser kUser{
    .name = "trainer", .uid = kTrialUid, .gid = kTrialGid, .groups = {kTrialGid}, .home = "/"};

struct Owner {
  uid_t uid;
  gid_t gid;
  bool operator==(const Owner&) const = default;
};

void PrintTo(const Owner& owner, std::ostream* out) { *out << owner.uid << ":" << owner.gid; }

Owner OwnerOf(const std::string& path) {
  struct stat info = {};
  EXPECT_EQ(lstat(path.c_str(), &info), 0) << path;
  return {info.st_uid, info.st_gid};
}

void Write(const std::string& path) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path) << "secret\n";
}

class JobDirHandoverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) GTEST_SKIP() << "changing owners needs root (the CI runs tests as root)";
  }
  testing::TempDir dir_;
};

TEST_F(JobDirHandoverTest, GivesWhatTheServerMadeAndFollowsNoLink) {
  const std::string job = dir_.path() + "/job";
  Write(job + "/.vernier-source/trainer/task.py");
  Write(job + "/7/.agent-token-0");
  fs::create_directories(job + "/7/logs");
  // What lies outside the job dir, reached through links planted in it.
  const std::string outside = dir_.path() + "/outside";
  Write(outside + "/admin.token");
  fs::create_symlink(outside + "/admin.token", job + "/7/linked.token");
  fs::create_symlink(outside, job + "/7/linked-folder");
  fs::create_hard_link(outside + "/admin.token", job + "/7/hard.token");
  // What a trainer of another user wrote stays its own.
  Write(job + "/7/theirs.txt");
  ASSERT_EQ(chown((job + "/7/theirs.txt").c_str(), kSomeoneElse, kSomeoneElse), 0);

  ASSERT_TRUE(HandOverJobDir(job, 0, kUser).ok());

  const Owner trial_user{kTrialUid, kTrialGid};
  for (const std::string given :
       {"", "/.vernier-source", "/.vernier-source/trainer", "/.vernier-source/trainer/task.py",
        "/7", "/7/.agent-token-0", "/7/logs"}) {
    EXPECT_EQ(OwnerOf(job + given), trial_user) << given;
  }
  EXPECT_EQ(OwnerOf(outside), (Owner{0, 0}));
  EXPECT_EQ(OwnerOf(outside + "/admin.token"), (Owner{0, 0}));
  EXPECT_EQ(OwnerOf(job + "/7/theirs.txt"), (Owner{kSomeoneElse, kSomeoneElse}));
  // The links themselves are left as they are too.
  EXPECT_EQ(OwnerOf(job + "/7/linked.token"), (Owner{0, 0}));
}

TEST_F(JobDirHandoverTest, AJobDirThatIsALinkIsRefused) {
  const std::string real = dir_.path() + "/real";
  fs::create_directories(real);
  fs::create_symlink(real, dir_.path() + "/job");
  const absl::Status given = HandOverJobDir(dir_.path() + "/job", 0, kUser);
  EXPECT_FALSE(given.ok());
  EXPECT_THAT(given.message(), ::testing::HasSubstr("cannot open the job dir '" + dir_.path() +
                                                    "/job' to give it to trainer"));
  EXPECT_EQ(OwnerOf(real), (Owner{0, 0}));
}

TEST_F(JobDirHandoverTest, OnlyTheServerMayChangeTheFoldersAboveAJobDir) {
  const std::string runs = dir_.path() + "/runs";
  fs::create_directories(runs);
  EXPECT_TRUE(CheckJobDirAncestors(runs + "/job", 0).ok());
  // Folders still to be made are the server's own.
  EXPECT_TRUE(CheckJobDirAncestors(runs + "/new/deeper/job", 0).ok());

  ASSERT_EQ(chown(runs.c_str(), kTrialUid, kTrialGid), 0);
  absl::Status checked = CheckJobDirAncestors(runs + "/job", 0);
  EXPECT_EQ(checked.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(checked.message(),
              ::testing::HasSubstr("the folder '" + runs + "' above the job dir '" + runs +
                                   "/job' belongs to uid 54321"));
  ASSERT_EQ(chown(runs.c_str(), 0, 0), 0);

  ASSERT_EQ(chmod(runs.c_str(), 0777), 0);
  EXPECT_THAT(CheckJobDirAncestors(runs + "/job", 0).message(),
              ::testing::HasSubstr("is writable by others (mode 0777)"));
  ASSERT_EQ(chmod(runs.c_str(), 01777), 0);
  EXPECT_TRUE(CheckJobDirAncestors(runs + "/job", 0).ok());

  fs::create_symlink(runs, dir_.path() + "/linked");
  EXPECT_THAT(CheckJobDirAncestors(dir_.path() + "/linked/job", 0).message(),
              ::testing::HasSubstr("is a symbolic link"));
}

}  // namespace
}  // namespace vernier::scheduler
