#include "scheduler/whole_node_guard.h"

namespace vernier::scheduler {

WholeNodeGuard::WholeNodeGuard(int largest_node) : largest_node_(largest_node) {}

bool WholeNodeGuard::NeedsWholeNode(int gpus) const {
  return largest_node_ > 0 && gpus >= largest_node_;
}

void WholeNodeGuard::Queued(int largest_replica) {
  if (NeedsWholeNode(largest_replica)) ++waiting_;
}

void WholeNodeGuard::Dequeued(int largest_replica) {
  if (NeedsWholeNode(largest_replica) && waiting_ > 0) --waiting_;
}

bool WholeNodeGuard::MayTake(int largest_replica, int open, int capacity) const {
  if (NeedsWholeNode(largest_replica)) return true;
  const bool whole = capacity == largest_node_ && open >= capacity && capacity > 0;
  return !whole || waiting_ == 0;
}

}  // namespace vernier::scheduler
