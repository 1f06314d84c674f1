#include "scheduler/slurm/slurm_outage.h"

#include <algorithm>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/transient_backend_error.h"
#include "tests/support/log_capture.h"

namespace vernier::scheduler {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

const absl::Time kStart = absl::FromUnixSeconds(1'800'000'000);

absl::Status Unreachable() {
  return MarkBackendTransient(absl::UnavailableError(
      "`scontrol show job -d -o 7` exited with code 1: slurm_load_jobs error: Unable to contact "
      "slurm controller (connect failure)"));
}

TEST(SlurmOutageTest, LogsAnOutageOnceAtItsStartAndOnceAtItsEnd) {
  testing::LogCapture log;
  SlurmOutage outage;
  EXPECT_FALSE(outage.Since().has_value());
  outage.Observe(Unreachable(), kStart);
  for (int i = 1; i <= 20; ++i) outage.Observe(Unreachable(), kStart + absl::Seconds(i));
  ASSERT_TRUE(outage.Since().has_value());
  EXPECT_EQ(*outage.Since(), kStart);
  EXPECT_EQ(outage.LastEnded(), absl::InfinitePast());
  outage.Observe(absl::OkStatus(), kStart + absl::Seconds(30));
  EXPECT_FALSE(outage.Since().has_value());
  EXPECT_EQ(outage.LastEnded(), kStart + absl::Seconds(30));
  // Later answers do not move it: the outage ended then.
  outage.Observe(absl::OkStatus(), kStart + absl::Seconds(40));
  EXPECT_EQ(outage.LastEnded(), kStart + absl::Seconds(30));
  const std::string text = log.Text();
  EXPECT_THAT(text, AllOf(HasSubstr("Slurm is unreachable since 2027-01-15T08:00:00+00:00"),
                          HasSubstr("Unable to contact slurm controller"),
                          HasSubstr("--slurm-outage-limit"),
                          HasSubstr("Slurm is back after 30s (21 commands failed meanwhile)")));
  // One line at each end, none per failed command.
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 2) << text;
}

TEST(SlurmOutageTest, PermanentErrorsStartNoOutage) {
  testing::LogCapture log;
  SlurmOutage outage;
  outage.Observe(absl::UnavailableError("cannot run `sbatch`: No such file or directory"), kStart);
  outage.Observe(absl::InvalidArgumentError("sbatch: error: invalid partition specified"), kStart);
  outage.Observe(absl::OkStatus(), kStart);
  EXPECT_FALSE(outage.Since().has_value());
  EXPECT_EQ(log.Text(), "");
}

TEST(SlurmOutageTest, APrefixKeepsTheTransientMark) {
  const absl::Status prefixed = PrefixBackendError("job=j trial=1: ", Unreachable());
  EXPECT_TRUE(IsTransientBackendError(prefixed));
  EXPECT_EQ(prefixed.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(prefixed.message()), ::testing::StartsWith("job=j trial=1: `scontrol"));
  EXPECT_FALSE(
      IsTransientBackendError(PrefixBackendError("x: ", absl::UnavailableError("not installed"))));
}

}  // namespace
}  // namespace vernier::scheduler
