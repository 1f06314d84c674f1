#include "tuner/storage/store_outage.h"

#include <utility>

#include "spdlog/spdlog.h"
#include "tuner/storage/transient_error.h"

namespace vernier::storage {

StoreOutage::StoreOutage(std::string store) : store_(std::move(store)) {}

void StoreOutage::Observe(const absl::Status& status, bool write, absl::Time now) {
  if (!status.ok() && !IsTransientStoreError(status)) return;
  absl::MutexLock lock(&mutex_);
  if (!status.ok()) {
    ++failed_calls_;
    if (since_.has_value()) return;
    since_ = now;
    began_with_write_ = write;
    failed_calls_ = 1;
    spdlog::warn(
        "{} is unavailable since {}: {}; what needs it waits and retries until it is back "
        "(jobs, trials and studies fail only after --store-outage-limit)",
        store_, absl::FormatTime(absl::RFC3339_sec, now, absl::UTCTimeZone()),
        std::string(status.message()));
    return;
  }
  if (!since_.has_value() || (began_with_write_ && !write)) return;
  spdlog::warn("{} is back after {} ({} calls failed meanwhile)", store_,
               absl::FormatDuration(absl::Trunc(now - *since_, absl::Milliseconds(100))),
               failed_calls_);
  since_.reset();
  last_ended_ = now;
}

std::optional<absl::Time> StoreOutage::Since() const {
  absl::MutexLock lock(&mutex_);
  return since_;
}

absl::Time StoreOutage::LastEnded() const {
  absl::MutexLock lock(&mutex_);
  return last_ended_;
}

}  // namespace vernier::storage
