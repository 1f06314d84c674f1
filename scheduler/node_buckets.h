#ifndef VERNIER_SCHEDULER_NODE_BUCKETS_H_
#define VERNIER_SCHEDULER_NODE_BUCKETS_H_

#include <vector>

namespace vernier::scheduler {

// Nodes grouped by a count (free GPUs, say) between 0 and a maximum, so that
// "a node whose count is the smallest at least g" costs O(maximum), not
// O(nodes): the allocator's best fit without a scan of the cluster.
class NodeBuckets {
 public:
  // Every node starts with counts[node].
  NodeBuckets(const std::vector<int>& counts, int max_count);

  int count(int node) const { return count_[node]; }
  void Set(int node, int count);
  void Add(int node, int delta) { Set(node, count_[node] + delta); }
  // A node whose count is the smallest that is at least `at_least`; -1 when
  // none is. Among equal counts, the one set last.
  int SmallestAtLeast(int at_least) const;
  // The nodes whose count is `count`.
  const std::vector<int>& NodesWith(int count) const { return buckets_[count]; }
  int max_count() const { return static_cast<int>(buckets_.size()) - 1; }

 private:
  std::vector<std::vector<int>> buckets_;
  std::vector<int> count_;
  // Where each node sits in buckets_[count_[node]].
  std::vector<int> position_;
};

}  // namespace vernier::scheduler

#endif  // VERNIER_SCHEDULER_NODE_BUCKETS_H_
