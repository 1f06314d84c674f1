#ifndef VERNIER_TUNER_CLI_TIME_FORMAT_H_
#define VERNIER_TUNER_CLI_TIME_FORMAT_H_

#include <google/protobuf/timestamp.pb.h>

#include <string>

#include "absl/time/time.h"

namespace vernier::cli {

// Proto3 cannot tell an unset Timestamp from the epoch; no Vernier time is
// ever the epoch, so both mean "not yet".
bool HasTime(const google::protobuf::Timestamp& timestamp);
absl::Time ToAbslTime(const google::protobuf::Timestamp& timestamp);

// "2024-05-01 14:03:07" in `time_zone`, or "-" when unset.
std::string FormatTimestamp(const google::protobuf::Timestamp& timestamp, absl::TimeZone time_zone);

// Compact and truncated, never rounded up: "3.2s", "4m05s", "2h03m", "3d04h".
// Negative durations (clock skew between hosts) print as "0.0s".
std::string FormatCompactDuration(absl::Duration duration);

// From start to end, or to `now` while running; "-" when it has not started.
std::string FormatElapsed(const google::protobuf::Timestamp& start,
                          const google::protobuf::Timestamp& end, absl::Time now);

}  // namespace vernier::cli

#endif  // VERNIER_TUNER_CLI_TIME_FORMAT_H_
