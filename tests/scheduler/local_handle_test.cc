#include "scheduler/local/local_handle.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace vernier::scheduler {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(LocalHandleTest, FormatsReplicasInOrderThenTheJob) {
  const LocalHandle handle{.replicas = {{1234, 5678}, {1240, 5680}}, .job_id = "lr_sweep_001"};
  EXPECT_EQ(handle.Format(), "local:1234@5678,1240@5680;job=lr_sweep_001");
}

TEST(LocalHandleTest, ParsesWhatItFormats) {
  const LocalHandle handle{.replicas = {{7, 0}, {32768, 18446744073709551615u}},
                           .job_id = "odd;job=id,with@marks"};
  absl::StatusOr<LocalHandle> parsed = LocalHandle::Parse(handle.Format());
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_THAT(parsed->replicas,
              ElementsAre(ProcessIdentity{7, 0}, ProcessIdentity{32768, 18446744073709551615u}));
  EXPECT_EQ(parsed->job_id, "odd;job=id,with@marks");
}

TEST(LocalHandleTest, ParsesAHandleWithoutJob) {
  absl::StatusOr<LocalHandle> parsed = LocalHandle::Parse("local:42@99");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_THAT(parsed->replicas, ElementsAre(ProcessIdentity{42, 99}));
  EXPECT_EQ(parsed->job_id, "");
}

struct BadHandle {
  std::string handle;
  std::string why;
};

class LocalHandleRejectsTest : public ::testing::TestWithParam<BadHandle> {};

TEST_P(LocalHandleRejectsTest, NamesTheHandleAndTheProblem) {
  absl::StatusOr<LocalHandle> parsed = LocalHandle::Parse(GetParam().handle);
  EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(parsed.status().message(), HasSubstr("backend_handle '" + GetParam().handle +
                                                   "' is not a local backend handle"));
  EXPECT_THAT(parsed.status().message(), HasSubstr(GetParam().why));
}

INSTANTIATE_TEST_SUITE_P(Malformed, LocalHandleRejectsTest,
                         ::testing::Values(BadHandle{"slurm:123", "does not start with 'local:'"},
                                           BadHandle{"local", "does not start with 'local:'"},
                                           BadHandle{"local:", "names no process"},
                                           BadHandle{"local:;job=x", "names no process"},
                                           BadHandle{"local:12", "'12' is not PID@START_TIME"},
                                           BadHandle{"local:12@", "'12@' is not PID@START_TIME"},
                                           BadHandle{"local:12@x", "'12@x' is not PID@START_TIME"},
                                           BadHandle{"local:0@5", "'0@5' is not PID@START_TIME"},
                                           BadHandle{"local:-3@5", "'-3@5' is not PID@START_TIME"},
                                           BadHandle{"local:1@2,,3@4", "'' is not PID@START_TIME"},
                                           BadHandle{"local:1@2@3",
                                                     "'1@2@3' is not PID@START_TIME"}));

}  // namespace
}  // namespace vernier::scheduler
