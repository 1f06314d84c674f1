#include "scheduler/node_buckets.h"

#include <algorithm>

namespace vernier::scheduler {

NodeBuckets::NodeBuckets(const std::vector<int>& counts, int max_count)
    : buckets_(std::max(max_count, 0) + 1), count_(counts), position_(counts.size()) {
  for (int node = 0; node < static_cast<int>(counts.size()); ++node) {
    std::vector<int>& bucket = buckets_[counts[node]];
    position_[node] = static_cast<int>(bucket.size());
    bucket.push_back(node);
  }
}

void NodeBuckets::Set(int node, int count) {
  if (count == count_[node]) return;
  std::vector<int>& old_bucket = buckets_[count_[node]];
  const int moved = old_bucket.back();
  old_bucket[position_[node]] = moved;
  position_[moved] = position_[node];
  old_bucket.pop_back();
  std::vector<int>& new_bucket = buckets_[count];
  position_[node] = static_cast<int>(new_bucket.size());
  new_bucket.push_back(node);
  count_[node] = count;
}

int NodeBuckets::SmallestAtLeast(int at_least) const {
  for (int count = std::max(at_least, 0); count < static_cast<int>(buckets_.size()); ++count) {
    if (!buckets_[count].empty()) return buckets_[count].back();
  }
  return -1;
}

}  // namespace vernier::scheduler
