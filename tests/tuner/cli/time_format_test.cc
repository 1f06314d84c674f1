#include "tuner/cli/time_format.h"

#include "gtest/gtest.h"

namespace vernier::cli {
namespace {

google::protobuf::Timestamp At(int64_t seconds, int32_t nanos = 0) {
  google::protobuf::Timestamp timestamp;
  timestamp.set_seconds(seconds);
  timestamp.set_nanos(nanos);
  return timestamp;
}

TEST(FormatCompactDurationTest, UnderAMinuteShowsTenthsTruncated) {
  EXPECT_EQ(FormatCompactDuration(absl::Milliseconds(3250)), "3.2s");
  EXPECT_EQ(FormatCompactDuration(absl::ZeroDuration()), "0.0s");
  EXPECT_EQ(FormatCompactDuration(absl::Milliseconds(59990)), "59.9s");
}

TEST(FormatCompactDurationTest, MinutesShowTwoDigitSeconds) {
  EXPECT_EQ(FormatCompactDuration(absl::Minutes(4) + absl::Seconds(5)), "4m05s");
  EXPECT_EQ(FormatCompactDuration(absl::Minutes(1)), "1m00s");
  EXPECT_EQ(FormatCompactDuration(absl::Minutes(59) + absl::Milliseconds(59999)), "59m59s");
}

TEST(FormatCompactDurationTest, HoursAndDays) {
  EXPECT_EQ(FormatCompactDuration(absl::Hours(2) + absl::Minutes(3) + absl::Seconds(59)), "2h03m");
  EXPECT_EQ(FormatCompactDuration(absl::Hours(24 * 3 + 4) + absl::Minutes(30)), "3d04h");
}

TEST(FormatCompactDurationTest, NegativeDurationsFromClockSkewShowZero) {
  EXPECT_EQ(FormatCompactDuration(absl::Seconds(-5)), "0.0s");
}

TEST(FormatTimestampTest, UnsetPrintsADash) {
  EXPECT_FALSE(HasTime(google::protobuf::Timestamp()));
  EXPECT_EQ(FormatTimestamp(google::protobuf::Timestamp(), absl::UTCTimeZone()), "-");
}

TEST(FormatTimestampTest, PrintsInTheGivenTimeZone) {
  // 2024-05-01 14:03:07 UTC
  const google::protobuf::Timestamp timestamp = At(1714572187, 500000000);
  EXPECT_TRUE(HasTime(timestamp));
  EXPECT_EQ(FormatTimestamp(timestamp, absl::UTCTimeZone()), "2024-05-01 14:03:07");
  EXPECT_EQ(FormatTimestamp(timestamp, absl::FixedTimeZone(2 * 3600)), "2024-05-01 16:03:07");
}

TEST(FormatElapsedTest, EndedRunsUseTheirEndTime) {
  EXPECT_EQ(FormatElapsed(At(1000), At(1245), absl::FromUnixSeconds(99999)), "4m05s");
}

TEST(FormatElapsedTest, RunningRunsCountToNow) {
  EXPECT_EQ(
      FormatElapsed(At(1000, 0), google::protobuf::Timestamp(), absl::FromUnixMillis(1003200)),
      "3.2s");
}

TEST(FormatElapsedTest, UnstartedRunsPrintADash) {
  EXPECT_EQ(FormatElapsed(google::protobuf::Timestamp(), At(5), absl::FromUnixSeconds(10)), "-");
}

TEST(ToAbslTimeTest, KeepsNanoseconds) {
  EXPECT_EQ(ToAbslTime(At(7, 250)), absl::FromUnixSeconds(7) + absl::Nanoseconds(250));
}

}  // namespace
}  // namespace vernier::cli
