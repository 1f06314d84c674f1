#ifndef VERNIER_SCHEDULER_PACKED_NODE_BUCKETS_H_
#define VERNIER_SCHEDULER_PACKED_NODE_BUCKETS_H_

#include <vector>

#include "scheduler/node_buckets.h"

namespace vernier::scheduler {

// Nodes keyed by a GPU count (free or open GPUs) and by how many gangs run
// on them, so that best fit's "the node with the fewest GPUs at least g"
// breaks its ties toward the node that runs the most gangs
// (GangAllocatorOptions::pack_busy_nodes).
//
// Why: a node frees up whole only when the last gang on it ends, and
// gangs that need whole nodes (8-GPU replicas) wait for such nodes. Adding
// a gang to a node delays that moment by how much its end exceeds the
// latest end of the gangs already there: the more gangs already run there,
// the later that latest end is likely to be, and the less the new gang
// adds. So among the nodes best fit finds equally good, a small replica
// goes where small gangs already share the node, and a node that runs one
// gang (which frees up whole when that gang ends) is left alone. Without
// run-time estimates the count of gangs stands in for the latest end.
//
// The key of a node is count x (max_count + 1) + (max_count - gangs), so
// that NodeBuckets' smallest key at least g x (max_count + 1) is the node
// with the smallest count at least g and, among those, the most gangs; a
// plan adds -g x scale() to a key to take g GPUs (Plan in
// gang_allocator.cc). Pure logic: no I/O, no clock.
class PackedNodeBuckets {
 public:
  // Every node starts with counts[node] and no gangs.
  PackedNodeBuckets(const std::vector<int>& counts, int max_count);

  int count(int node) const { return count_[node]; }
  int gangs(int node) const { return gangs_[node]; }
  void AddCount(int node, int delta);
  void AddGangs(int node, int delta);
  // A node with the smallest count at least `at_least` and, among those,
  // the most gangs; -1 when none has the count.
  int SmallestAtLeast(int at_least) const;

  // The keys, for a plan that takes GPUs by adding -gpus x scale().
  NodeBuckets& keys() { return keys_; }
  int scale() const { return scale_; }

 private:
  int Key(int node) const;

  int scale_;
  std::vector<int> count_;
  std::vector<int> gangs_;
  NodeBuckets keys_;
};

}  // namespace vernier::scheduler

#endif  // VERNIER_SCHEDULER_PACKED_NODE_BUCKETS_H_
