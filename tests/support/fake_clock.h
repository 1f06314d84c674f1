#ifndef VERNIER_TESTS_SUPPORT_FAKE_CLOCK_H_
#define VERNIER_TESTS_SUPPORT_FAKE_CLOCK_H_

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "tuner/clock.h"

namespace vernier::testing {

// A clock the test moves by hand. Thread-safe.
class FakeClock {
 public:
  explicit FakeClock(absl::Time start = absl::FromUnixSeconds(1700000000)) : now_(start) {}

  absl::Time Now() {
    absl::MutexLock lock(&mutex_);
    return now_;
  }
  void Advance(absl::Duration by) {
    absl::MutexLock lock(&mutex_);
    now_ += by;
  }
  // Reads this clock; it must outlive the returned function.
  tuner::Clock AsClock() {
    return [this] { return Now(); };
  }

 private:
  absl::Mutex mutex_;
  absl::Time now_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace vernier::testing

#endif  // VERNIER_TESTS_SUPPORT_FAKE_CLOCK_H_
