#ifndef VERNIER_TUNER_CLOCK_H_
#define VERNIER_TUNER_CLOCK_H_

#include <functional>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/timestamp.h"

namespace vernier::tuner {

// The time source of the state machines, injected so tests control it.
using Clock = std::function<absl::Time()>;

inline Clock SystemClock() {
  return [] { return absl::Now(); };
}

using ::vernier::FromTimestamp;
using ::vernier::ToTimestamp;

}  // namespace vernier::tuner

#endif  // VERNIER_TUNER_CLOCK_H_
