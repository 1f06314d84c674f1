#include "scheduler/packed_node_buckets.h"

#include <algorithm>

namespace vernier::scheduler {
namespace {

std::vector<int> Keys(const std::vector<int>& counts, int scale) {
  std::vector<int> keys;
  keys.reserve(counts.size());
  // No gangs yet: the last key of each count.
  for (int count : counts) keys.push_back(count * scale + scale - 1);
  return keys;
}

}  // namespace

PackedNodeBuckets::PackedNodeBuckets(const std::vector<int>& counts, int max_count)
    : scale_(std::max(max_count, 0) + 1),
      count_(counts),
      gangs_(counts.size(), 0),
      keys_(Keys(counts, scale_), scale_ * scale_ - 1) {}

int PackedNodeBuckets::Key(int node) const {
  // More gangs than GPUs cannot happen (only replicas with GPUs count);
  // clamp so that the key stays within the count's range regardless.
  const int gangs = std::clamp(gangs_[node], 0, scale_ - 1);
  return count_[node] * scale_ + (scale_ - 1 - gangs);
}

void PackedNodeBuckets::AddCount(int node, int delta) {
  count_[node] += delta;
  keys_.Set(node, Key(node));
}

void PackedNodeBuckets::AddGangs(int node, int delta) {
  gangs_[node] += delta;
  keys_.Set(node, Key(node));
}

int PackedNodeBuckets::SmallestAtLeast(int at_least) const {
  return keys_.SmallestAtLeast(std::max(at_least, 0) * scale_);
}

}  // namespace vernier::scheduler
