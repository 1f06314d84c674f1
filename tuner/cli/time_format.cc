#include "tuner/cli/time_format.h"

#include <cstdint>

#include "absl/strings/str_format.h"
#include "common/timestamp.h"

namespace vernier::cli {

bool HasTime(const google::protobuf::Timestamp& timestamp) {
  return timestamp.seconds() != 0 || timestamp.nanos() != 0;
}

absl::Time ToAbslTime(const google::protobuf::Timestamp& timestamp) {
  return FromTimestamp(timestamp);
}

std::string FormatTimestamp(const google::protobuf::Timestamp& timestamp,
                            absl::TimeZone time_zone) {
  if (!HasTime(timestamp)) return "-";
  return absl::FormatTime("%Y-%m-%d %H:%M:%S", ToAbslTime(timestamp), time_zone);
}

std::string FormatCompactDuration(absl::Duration duration) {
  if (duration < absl::ZeroDuration()) duration = absl::ZeroDuration();
  if (duration < absl::Minutes(1)) {
    const int64_t tenths = absl::IDivDuration(duration, absl::Milliseconds(100), &duration);
    return absl::StrFormat("%d.%ds", tenths / 10, tenths % 10);
  }
  const int64_t seconds = absl::ToInt64Seconds(duration);
  if (duration < absl::Hours(1)) {
    return absl::StrFormat("%dm%02ds", seconds / 60, seconds % 60);
  }
  if (duration < absl::Hours(24)) {
    return absl::StrFormat("%dh%02dm", seconds / 3600, (seconds % 3600) / 60);
  }
  return absl::StrFormat("%dd%02dh", seconds / 86400, (seconds % 86400) / 3600);
}

std::string FormatElapsed(const google::protobuf::Timestamp& start,
                          const google::protobuf::Timestamp& end, absl::Time now) {
  if (!HasTime(start)) return "-";
  const absl::Time finish = HasTime(end) ? ToAbslTime(end) : now;
  return FormatCompactDuration(finish - ToAbslTime(start));
}

}  // namespace vernier::cli
