#ifndef VERNIER_COMMON_TIMESTAMP_H_
#define VERNIER_COMMON_TIMESTAMP_H_

#include <cstdint>

#include "absl/time/time.h"
#include "google/protobuf/timestamp.pb.h"

namespace vernier {

// A protobuf Timestamp (what the API and the store carry) to and from
// absl::Time (what the code computes with), to the nanosecond.
inline google::protobuf::Timestamp ToTimestamp(absl::Time time) {
  const int64_t nanos = absl::ToUnixNanos(time);
  google::protobuf::Timestamp timestamp;
  timestamp.set_seconds(nanos / 1000000000);
  timestamp.set_nanos(static_cast<int32_t>(nanos % 1000000000));
  return timestamp;
}

inline absl::Time FromTimestamp(const google::protobuf::Timestamp& timestamp) {
  return absl::FromUnixSeconds(timestamp.seconds()) + absl::Nanoseconds(timestamp.nanos());
}

}  // namespace vernier

#endif  // VERNIER_COMMON_TIMESTAMP_H_
