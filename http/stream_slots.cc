#include "http/stream_slots.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace vernier::http {

StreamSlots::StreamSlots(int max_per_caller) : max_per_caller_(max_per_caller) {}

absl::StatusOr<std::shared_ptr<void>> StreamSlots::Take(const std::string& caller) {
  {
    absl::MutexLock lock(&mutex_);
    int& held = held_[caller];
    if (held >= max_per_caller_) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "this caller already has ", held,
          " event streams open, the limit per caller "
          "(docs/http-api.md, \"Limits\"); close a dashboard page or wait for one to end"));
    }
    ++held;
  }
  // Released with the slot; the object itself is only a marker.
  return std::shared_ptr<void>(new int(0), [this, caller](void* marker) {
    delete static_cast<int*>(marker);
    GiveBack(caller);
  });
}

int StreamSlots::Held(const std::string& caller) const {
  absl::MutexLock lock(&mutex_);
  const auto held = held_.find(caller);
  return held == held_.end() ? 0 : held->second;
}

void StreamSlots::GiveBack(const std::string& caller) {
  absl::MutexLock lock(&mutex_);
  const auto held = held_.find(caller);
  if (held == held_.end()) return;
  if (--held->second <= 0) held_.erase(held);
}

}  // namespace vernier::http
