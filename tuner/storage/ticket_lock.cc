#include "tuner/storage/ticket_lock.h"

namespace vernier::storage {

// Evaluated by absl::Mutex with mutex_ held, which the analysis cannot see.
bool TicketLock::IsTurn(Turn* turn) { return turn->lock->now_serving_ == turn->ticket; }

void TicketLock::lock() {
  absl::MutexLock lock(&mutex_);
  Turn turn{this, next_ticket_++};
  // absl::Mutex wakes only the waiter whose condition holds.
  mutex_.Await(absl::Condition(&IsTurn, &turn));
}

void TicketLock::unlock() {
  absl::MutexLock lock(&mutex_);
  ++now_serving_;
}

int64_t TicketLock::holders_and_waiters() const {
  absl::MutexLock lock(&mutex_);
  return static_cast<int64_t>(next_ticket_ - now_serving_);
}

}  // namespace vernier::storage
