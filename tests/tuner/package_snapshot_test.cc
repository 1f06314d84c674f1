// A packaged trainer's packages copied at submit: what is copied and left
// out, and that the copy, not the source, is what gets installed.
#include "tuner/package_snapshot.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "tests/support/subprocess.h"

namespace vernier::tuner {
namespace {

using ::testing::HasSubstr;

void Write(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path) << text;
}

bool Exists(const std::string& path) { return std::filesystem::exists(path); }

class PackageSnapshotTest : public ::testing::Test {
 protected:
  v1::Job PackagedJob(const std::vector<std::string>& packages) {
    v1::Job job;
    job.set_job_id("snap");
    // Inside the project, as `--job-dir runs/snap` makes it.
    job.set_job_dir(dir_.path() + "/project/runs/snap");
    job.mutable_training_input()->set_python_module("trainer.task");
    for (const std::string& package : packages) {
      job.mutable_training_input()->add_package_uris(package);
    }
    return job;
  }

  testing::TempDir dir_;
};

TEST_F(PackageSnapshotTest, TheCopyIsTakenAtSubmitAndInstalledFromWhateverTheSourceBecomes) {
  const std::string project = dir_.path() + "/project";
  Write(project + "/setup.py", "from setuptools import setup\nsetup(name='trainer')\n");
  Write(project + "/trainer/__init__.py", "");
  Write(project + "/trainer/task.py", "VERSION = 1\n");
  Write(project + "/.git/HEAD", "ref: refs/heads/main\n");
  Write(project + "/trainer/__pycache__/task.cpython-311.pyc", "");
  Write(project + "/venv/pyvenv.cfg", "home = /usr/bin\n");
  Write(project + "/build/lib/trainer/task.py", "VERSION = 0\n");
  Write(project + "/runs/old_job/.vernier-packages/x.py", "");
  Write(project + "/data/build/keep.txt", "a nested build/ is the package's own\n");
  v1::Job job = PackagedJob({project + "/trainer"});

  absl::StatusOr<std::string> taken = PackageSnapshot::Take(job);
  ASSERT_TRUE(taken.ok()) << taken.status();
  ASSERT_TRUE(PackageSnapshot::Keep(job, *taken).ok());
  EXPECT_FALSE(Exists(*taken));
  const std::string copy = PackageSnapshot::Dir(job) + "/0/project";
  EXPECT_EQ(testing::ReadFile(copy + "/trainer/task.py"), "VERSION = 1\n");
  EXPECT_TRUE(Exists(copy + "/setup.py"));
  EXPECT_TRUE(Exists(copy + "/data/build/keep.txt"));
  for (const char* left_out :
       {"/.git", "/trainer/__pycache__", "/venv", "/build", "/runs/old_job", "/runs/snap"}) {
    EXPECT_FALSE(Exists(copy + left_out)) << left_out;
  }

  // Edited after submit: the install reads the copy.
  Write(project + "/trainer/task.py", "VERSION = 2\n");
  absl::StatusOr<std::vector<PackageSource>> sources = PackageSnapshot::Sources(job);
  ASSERT_TRUE(sources.ok()) << sources.status();
  ASSERT_EQ(sources->size(), 1u);
  EXPECT_EQ((*sources)[0].path, copy);
  EXPECT_EQ((*sources)[0].way, PackageSource::Way::kPip);
}

TEST_F(PackageSnapshotTest, ABarePackageAndAnArchiveAreCopiedAsTheyAre) {
  Write(dir_.path() + "/src/trainer/__init__.py", "");
  Write(dir_.path() + "/dist/extra-1.0.tar.gz", "not really an archive");
  v1::Job job = PackagedJob({dir_.path() + "/src/trainer", dir_.path() + "/dist/extra-1.0.tar.gz"});
  absl::StatusOr<std::string> taken = PackageSnapshot::Take(job);
  ASSERT_TRUE(taken.ok()) << taken.status();
  ASSERT_TRUE(PackageSnapshot::Keep(job, *taken).ok());
  absl::StatusOr<std::vector<PackageSource>> sources = PackageSnapshot::Sources(job);
  ASSERT_TRUE(sources.ok()) << sources.status();
  ASSERT_EQ(sources->size(), 2u);
  EXPECT_EQ((*sources)[0].path, PackageSnapshot::Dir(job) + "/0/trainer");
  EXPECT_EQ((*sources)[0].way, PackageSource::Way::kCopy);
  EXPECT_EQ((*sources)[1].path, PackageSnapshot::Dir(job) + "/1/extra-1.0.tar.gz");
}

TEST_F(PackageSnapshotTest, APackageOverTheLimitIsRefusedNamingItAndNothingIsLeft) {
  const std::string project = dir_.path() + "/project";
  Write(project + "/setup.py", "from setuptools import setup\nsetup(name='trainer')\n");
  std::filesystem::create_directories(project + "/data");
  for (int i = 0; i <= PackageSnapshot::kMaxFiles; ++i) {
    std::ofstream(project + "/data/" + std::to_string(i));
  }
  v1::Job job = PackagedJob({project});
  const absl::StatusOr<std::string> taken = PackageSnapshot::Take(job);
  EXPECT_EQ(taken.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(taken.status().message(), HasSubstr("training_input.package_uris[0]: \"" + project +
                                                  "\" holds more than 50000 files"));
  EXPECT_THAT(taken.status().message(), HasSubstr("python3 -m build"));
  // The partial copy is gone: the job dir holds nothing but itself.
  EXPECT_TRUE(std::filesystem::is_empty(job.job_dir()));
}

TEST_F(PackageSnapshotTest, ADiscardedCopyLeavesNothingAndAMissingCopyIsNamed) {
  Write(dir_.path() + "/src/trainer/__init__.py", "");
  v1::Job job = PackagedJob({dir_.path() + "/src/trainer"});
  absl::StatusOr<std::string> taken = PackageSnapshot::Take(job);
  ASSERT_TRUE(taken.ok()) << taken.status();
  PackageSnapshot::Discard(*taken);
  EXPECT_FALSE(Exists(*taken));
  // No copy at all (a job stored before copies existed): the source itself.
  absl::StatusOr<std::vector<PackageSource>> sources = PackageSnapshot::Sources(job);
  ASSERT_TRUE(sources.ok()) << sources.status();
  EXPECT_EQ((*sources)[0].path, dir_.path() + "/src/trainer");
  // A copy without package 0's folder.
  std::filesystem::create_directories(PackageSnapshot::Dir(job));
  sources = PackageSnapshot::Sources(job);
  EXPECT_EQ(sources.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(sources.status().message(),
              HasSubstr("training_input.package_uris[0]: its copy made at submit is missing"));
}

// Resets the fault hook when the test ends.
struct FaultHookGuard {
  explicit FaultHookGuard(PackageSnapshot::FaultHook hook) {
    PackageSnapshot::SetFaultHookForTesting(std::move(hook));
  }
  ~FaultHookGuard() { PackageSnapshot::SetFaultHookForTesting(nullptr); }
};

// What the job dir holds besides what the test put there.
std::vector<std::string> Listing(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    names.push_back(entry.path().filename().string());
  }
  return names;
}

TEST_F(PackageSnapshotTest, ACopyThatFailsMidwayIsRefusedNamingThePackageAndNothingIsLeft) {
  const std::string project = dir_.path() + "/project";
  Write(project + "/setup.py", "from setuptools import setup\nsetup(name='trainer')\n");
  Write(project + "/trainer/__init__.py", "");
  Write(project + "/trainer/model.py", "W = 1\n");
  Write(project + "/trainer/task.py", "VERSION = 1\n");
  // The disk fills up at the third file, some copied already.
  int copied = 0;
  FaultHookGuard fault([&](PackageSnapshot::Step step, const std::string&) {
    if (step != PackageSnapshot::Step::kCopy || ++copied < 3) return std::error_code();
    return std::make_error_code(std::errc::no_space_on_device);
  });
  v1::Job job = PackagedJob({project});
  const absl::StatusOr<std::string> taken = PackageSnapshot::Take(job);
  EXPECT_EQ(taken.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(taken.status().message(),
              HasSubstr("training_input.package_uris[0]: \"" + project +
                        "\" cannot be copied at submit: " + project + "/"));
  EXPECT_THAT(taken.status().message(), HasSubstr("No space left on device"));
  EXPECT_EQ(copied, 3);
  // The partial copy is gone: the job dir holds nothing.
  EXPECT_THAT(Listing(job.job_dir()), ::testing::IsEmpty());
}

TEST_F(PackageSnapshotTest, AMoveIntoPlaceThatFailsNamesThePackagesAndLeavesNoCopy) {
  Write(dir_.path() + "/src/trainer/__init__.py", "");
  v1::Job job = PackagedJob({dir_.path() + "/src/trainer"});
  // An older copy (a job resubmitted into the same job dir).
  Write(PackageSnapshot::Dir(job) + "/0/trainer/__init__.py", "old\n");
  absl::StatusOr<std::string> taken = PackageSnapshot::Take(job);
  ASSERT_TRUE(taken.ok()) << taken.status();
  FaultHookGuard fault([](PackageSnapshot::Step step, const std::string&) {
    return step == PackageSnapshot::Step::kMove
               ? std::make_error_code(std::errc::device_or_resource_busy)
               : std::error_code();
  });
  const absl::Status kept = PackageSnapshot::Keep(job, *taken);
  EXPECT_EQ(kept.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(kept.message(),
              HasSubstr("the copy of training_input.package_uris[0] (\"" + dir_.path() +
                        "/src/trainer\") taken at submit cannot "
                        "be moved to " +
                        PackageSnapshot::Dir(job)));
  // Neither the new copy nor the old one: nothing would run the wrong code.
  EXPECT_FALSE(Exists(*taken));
  EXPECT_FALSE(Exists(PackageSnapshot::Dir(job)));
  EXPECT_THAT(Listing(job.job_dir()), ::testing::IsEmpty());
}

}  // namespace
}  // namespace vernier::tuner
