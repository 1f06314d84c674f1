#ifndef VERNIER_TUNER_STORAGE_TICKET_LOCK_H_
#define VERNIER_TUNER_STORAGE_TICKET_LOCK_H_

#include <cstdint>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace vernier::storage {

// A lock taken in arrival order: whoever asked first gets it next, so a
// thread that takes it back at once (a group commit writing batch after
// batch) cannot keep a waiting one out. Not reentrant. Meets BasicLockable,
// for std::unique_lock.
class TicketLock {
 public:
  TicketLock() = default;
  TicketLock(const TicketLock&) = delete;
  TicketLock& operator=(const TicketLock&) = delete;

  void lock();
  void unlock();

  // Threads holding or waiting for the lock, for tests.
  int64_t holders_and_waiters() const;

 private:
  struct Turn {
    const TicketLock* lock;
    uint64_t ticket;
  };
  static bool IsTurn(Turn* turn) ABSL_NO_THREAD_SAFETY_ANALYSIS;

  mutable absl::Mutex mutex_;
  uint64_t next_ticket_ ABSL_GUARDED_BY(mutex_) = 0;
  uint64_t now_serving_ ABSL_GUARDED_BY(mutex_) = 0;
};

}  // namespace vernier::storage

#endif  // VERNIER_TUNER_STORAGE_TICKET_LOCK_H_
