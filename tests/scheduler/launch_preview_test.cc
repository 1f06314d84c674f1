// Backend::PreviewLaunch, the shell text `vernier jobs submit --dry-run`
// shows for the local backend.
#include <string>

#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/local/local_backend.h"

namespace vernier::scheduler {
namespace {

using ::testing::HasSubstr;

TrialLaunch OneReplica(const std::string& log_path, const std::string& working_dir) {
  TrialLaunch launch;
  launch.job_id = "job_1";
  launch.study_name = "job_1";
  launch.trial_id = 1;
  launch.trial_dir = working_dir;
  ReplicaLaunch replica;
  replica.role = "master";
  replica.argv = {"python3", "train.py", "--note=two\nlines"};
  replica.working_dir = working_dir;
  replica.log_path = log_path;
  launch.replicas.push_back(replica);
  return launch;
}

// The comment naming the log once carried a newline of the job dir into a
// line of its own.
TEST(LaunchPreviewTest, AControlCharacterInAPathIsRefusedNamingIt) {
  LocalBackend backend;
  absl::StatusOr<std::string> preview =
      backend.PreviewLaunch(OneReplica("/jobs/j\nrm -rf ~\n#/1/logs/master-0.log", "/jobs/j/1"));
  ASSERT_EQ(preview.status().code(), absl::StatusCode::kInvalidArgument) << preview.status();
  EXPECT_THAT(preview.status().message(),
              HasSubstr("replica master-0: log path contains a control character (\\n at byte 7)"));

  preview = backend.PreviewLaunch(OneReplica("/jobs/j/1/logs/master-0.log", "/jobs/j\r/1"));
  ASSERT_EQ(preview.status().code(), absl::StatusCode::kInvalidArgument) << preview.status();
  EXPECT_THAT(preview.status().message(), HasSubstr("replica master-0: working dir contains"));
}

TEST(LaunchPreviewTest, EveryPathIsQuoted) {
  LocalBackend backend;
  absl::StatusOr<std::string> preview =
      backend.PreviewLaunch(OneReplica("/jobs/my job/1/logs/master-0.log", "/jobs/my job/1"));
  ASSERT_TRUE(preview.ok()) << preview.status();
  EXPECT_THAT(*preview, HasSubstr(", log '/jobs/my job/1/logs/master-0.log'\n"));
  EXPECT_THAT(*preview, HasSubstr("cd '/jobs/my job/1' &&\n"));
  // An argument's newline stays inside its quotes.
  EXPECT_THAT(*preview, HasSubstr("python3 train.py '--note=two\nlines'\n"));
}

}  // namespace
}  // namespace vernier::scheduler
