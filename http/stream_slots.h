#ifndef VERNIER_HTTP_STREAM_SLOTS_H_
#define VERNIER_HTTP_STREAM_SLOTS_H_

#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"

namespace vernier::http {

// The event streams (/events...) each caller has open, at most
// `max_per_caller` at a time (kMaxStreamsPerCaller): each holds a
// connection and a thread as long as the page is open.
class StreamSlots {
 public:
  explicit StreamSlots(int max_per_caller);

  // One of `caller`'s slots (`caller`: its credentials as sent, empty for
  // none), given back when the last copy of the answer goes;
  // RESOURCE_EXHAUSTED naming the limit when they are all taken.
  absl::StatusOr<std::shared_ptr<void>> Take(const std::string& caller);

  // How many `caller` holds.
  int Held(const std::string& caller) const;

 private:
  void GiveBack(const std::string& caller);

  const int max_per_caller_;
  mutable absl::Mutex mutex_;
  absl::flat_hash_map<std::string, int> held_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace vernier::http

#endif  // VERNIER_HTTP_STREAM_SLOTS_H_
