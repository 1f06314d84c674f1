#ifndef VERNIER_TUNER_CLOCK_H_
#define VERNIER_TUNER_CLOCK_H_

#include <functional>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "google/protobuf/timestamp.pb.h"

namespace vernier::tuner {

// The time source of the state machines, injected so tests control it.
using Clock = std::function<absl::Time()>;

inline Clock SystemClock() {
  return [] { return absl::Now(); };
}

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

}  // namespace vernier::tuner

#endif  // VERNIER_TUNER_CLOCK_H_
