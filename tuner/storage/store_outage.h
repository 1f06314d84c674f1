#ifndef VERNIER_TUNER_STORAGE_STORE_OUTAGE_H_
#define VERNIER_TUNER_STORAGE_STORE_OUTAGE_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace vernier::storage {

// Whether a store is away (PostgreSQL down or restarting, SQLite's disk
// full), as its calls show: the first call that fails with a transient
// error (IsTransientStoreError) starts an outage, the next call that passes
// ends it. An outage that began with a failed write ends only with a write
// that passes, since reads may pass meanwhile (a full disk). Logs each
// outage twice, at its start (a warning with the first error) and at its end
// (with its length and how many calls failed), never once per call.
// Thread-safe.
class StoreOutage {
 public:
  // `store` names the store in the log lines (no password).
  explicit StoreOutage(std::string store);

  // A call of the store ended with `status` at `now`; `write` for a call
  // that writes. Permanent errors change nothing.
  void Observe(const absl::Status& status, bool write, absl::Time now);

  // When the outage under way began; nullopt while the store answers.
  std::optional<absl::Time> Since() const;
  // When the last outage ended; InfinitePast when none has.
  absl::Time LastEnded() const;

 private:
  const std::string store_;
  mutable absl::Mutex mutex_;
  std::optional<absl::Time> since_ ABSL_GUARDED_BY(mutex_);
  bool began_with_write_ ABSL_GUARDED_BY(mutex_) = false;
  int64_t failed_calls_ ABSL_GUARDED_BY(mutex_) = 0;
  absl::Time last_ended_ ABSL_GUARDED_BY(mutex_) = absl::InfinitePast();
};

}  // namespace vernier::storage

#endif  // VERNIER_TUNER_STORAGE_STORE_OUTAGE_H_
