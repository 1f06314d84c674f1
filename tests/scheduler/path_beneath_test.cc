#include "scheduler/path_beneath.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/subprocess.h"

namespace vernier::scheduler {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::vernier::testing::TempDir;

std::string Read(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>());
}

class PathBeneathTest : public ::testing::Test {
 protected:
  void SetUp() override {
    job_dir_ = temp_.path() + "/job";
    victim_dir_ = temp_.path() + "/victim";
    fs::create_directories(job_dir_);
    fs::create_directories(victim_dir_);
    victim_file_ = victim_dir_ + "/precious.txt";
    std::ofstream(victim_file_) << "precious\n";
  }

  // The victim dir holds nothing but its file, as it did.
  void ExpectVictimUntouched() {
    EXPECT_EQ(Read(victim_file_), "precious\n");
    int entries = 0;
    for ([[maybe_unused]] const auto& entry : fs::directory_iterator(victim_dir_)) ++entries;
    EXPECT_EQ(entries, 1);
  }

  TempDir temp_;
  std::string job_dir_;
  std::string victim_dir_;
  std::string victim_file_;
};

TEST_F(PathBeneathTest, CreatesTheDirectoriesAndTheFileAndAppends) {
  const std::string log = job_dir_ + "/3/logs/master-0.log";
  ASSERT_TRUE(MakeDirectoriesBeneath(job_dir_, job_dir_ + "/3").ok());
  for (const char* text : {"one\n", "two\n"}) {
    absl::StatusOr<int> fd = OpenFileBeneath(job_dir_, log, O_WRONLY | O_CREAT | O_APPEND);
    ASSERT_TRUE(fd.ok()) << fd.status();
    ASSERT_EQ(write(*fd, text, 4), 4);
    close(*fd);
  }
  EXPECT_EQ(Read(log), "one\ntwo\n");
  // The job dir itself is made when missing.
  const std::string fresh = temp_.path() + "/fresh/job";
  EXPECT_TRUE(MakeDirectoriesBeneath(fresh, fresh + "/1/logs").ok());
  EXPECT_TRUE(fs::is_directory(fresh + "/1/logs"));
}

TEST_F(PathBeneathTest, ASymlinkPlantedForATrialDirIsRefusedAndNothingIsWrittenThroughIt) {
  fs::create_directory_symlink(victim_dir_, job_dir_ + "/3");
  const absl::Status made = MakeDirectoriesBeneath(job_dir_, job_dir_ + "/3/logs");
  EXPECT_EQ(made.code(), absl::StatusCode::kFailedPrecondition) << made;
  EXPECT_THAT(made.message(), AllOf(HasSubstr("'" + job_dir_ + "/3' is a symbolic link"),
                                    HasSubstr("never follows")));
  const absl::StatusOr<int> opened =
      OpenFileBeneath(job_dir_, job_dir_ + "/3/logs/master-0.log", O_WRONLY | O_CREAT | O_APPEND);
  EXPECT_EQ(opened.status().code(), absl::StatusCode::kFailedPrecondition) << opened.status();
  ExpectVictimUntouched();
}

TEST_F(PathBeneathTest, ASymlinkPlantedForTheLogsDirIsRefused) {
  fs::create_directories(job_dir_ + "/3");
  fs::create_directory_symlink(victim_dir_, job_dir_ + "/3/logs");
  const absl::StatusOr<int> opened =
      OpenFileBeneath(job_dir_, job_dir_ + "/3/logs/master-0.log", O_WRONLY | O_CREAT | O_APPEND);
  EXPECT_EQ(opened.status().code(), absl::StatusCode::kFailedPrecondition) << opened.status();
  EXPECT_THAT(opened.status().message(), HasSubstr("'" + job_dir_ + "/3/logs' is a symbolic link"));
  ExpectVictimUntouched();
}

TEST_F(PathBeneathTest, ASymlinkPlantedForALogFileIsRefusedAndTheTargetKeepsItsBytes) {
  fs::create_directories(job_dir_ + "/3/logs");
  const std::string log = job_dir_ + "/3/logs/master-0.log";
  fs::create_symlink(victim_file_, log);
  const absl::StatusOr<int> opened = OpenFileBeneath(job_dir_, log, O_WRONLY | O_CREAT | O_APPEND);
  EXPECT_EQ(opened.status().code(), absl::StatusCode::kFailedPrecondition) << opened.status();
  EXPECT_THAT(opened.status().message(), HasSubstr("'" + log + "' is a symbolic link"));
  // A dangling link is refused too, and creates nothing at its target.
  const std::string dangling = job_dir_ + "/3/logs/worker-0.log";
  fs::create_symlink(victim_dir_ + "/new.txt", dangling);
  EXPECT_EQ(OpenFileBeneath(job_dir_, dangling, O_WRONLY | O_CREAT | O_APPEND).status().code(),
            absl::StatusCode::kFailedPrecondition);
  ExpectVictimUntouched();
}

TEST_F(PathBeneathTest, AFifoOrAPathOutsideTheJobDirIsRefusedWithoutBlocking) {
  fs::create_directories(job_dir_ + "/3/logs");
  const std::string fifo = job_dir_ + "/3/logs/master-0.log";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0644), 0);
  const absl::StatusOr<int> opened = OpenFileBeneath(job_dir_, fifo, O_WRONLY | O_CREAT | O_APPEND);
  EXPECT_FALSE(opened.ok());
  EXPECT_THAT(opened.status().message(), HasSubstr(fifo));
  const absl::Status outside = MakeDirectoriesBeneath(job_dir_, job_dir_ + "/../victim/x");
  EXPECT_EQ(outside.code(), absl::StatusCode::kFailedPrecondition) << outside;
  EXPECT_THAT(outside.message(), HasSubstr("not under the job dir"));
  ExpectVictimUntouched();
}

TEST_F(PathBeneathTest, CheckJobDirRefusesWhatAnotherUserCouldSteer) {
  EXPECT_TRUE(CheckJobDir(job_dir_).ok());
  EXPECT_TRUE(CheckJobDir(job_dir_ + "/not/yet/made").ok());

  EXPECT_THAT(CheckJobDir(victim_file_).message(), HasSubstr("is not a directory"));
  EXPECT_THAT(CheckJobDir(victim_file_ + "/under").message(), HasSubstr("not a directory"));

  const std::string open_dir = temp_.path() + "/open";
  fs::create_directories(open_dir);
  ASSERT_EQ(chmod(open_dir.c_str(), 0777), 0);
  for (const std::string& job_dir : {open_dir, open_dir + "/job"}) {
    const absl::Status status = CheckJobDir(job_dir);
    EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << job_dir;
    EXPECT_THAT(status.message(),
                AllOf(HasSubstr(job_dir), HasSubstr("writable by every user without the sticky")));
  }
  // With the sticky bit (as /tmp), another user cannot replace what the
  // server makes there.
  ASSERT_EQ(chmod(open_dir.c_str(), 01777), 0);
  EXPECT_TRUE(CheckJobDir(open_dir + "/job").ok());

  const std::string theirs = temp_.path() + "/theirs";
  fs::create_directories(theirs);
  if (chown(theirs.c_str(), geteuid() + 1, getegid()) != 0) {
    GTEST_SKIP() << "cannot give a directory to another user (not root): ownership unchecked";
  }
  const absl::Status status = CheckJobDir(theirs);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(), AllOf(HasSubstr(theirs), HasSubstr("belongs to user")));
}

}  // namespace
}  // namespace vernier::scheduler
