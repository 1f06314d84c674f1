#ifndef VERNIER_SCHEDULER_GANG_ALLOCATOR_H_
#define VERNIER_SCHEDULER_GANG_ALLOCATOR_H_

#include <deque>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"

namespace vernier::scheduler {

// Where one replica of a gang runs: a node, and GPU slots 0..n-1 of that
// node's inventory.
struct ReplicaPlacement {
  int node = 0;
  std::vector<int> gpus;

  bool operator==(const ReplicaPlacement&) const = default;
};

// A trial's replicas, which start together or not at all.
struct GangRequest {
  // Unique among the queued and placed gangs.
  std::string id;
  // One entry per replica; 0 for a replica without GPUs.
  std::vector<int> gpus_per_replica;
};

struct GangPlacement {
  std::string id;
  // In the request's replica order.
  std::vector<ReplicaPlacement> replicas;
};

// All-or-nothing GPU allocation over a set of nodes: a gang gets every GPU
// each of its replicas asks for (each replica on one node) or nothing, no
// GPU is ever held by two gangs, and the queue order never lets a stream of
// small gangs starve a large one. Pure logic: no I/O, no clock.
class GangAllocator {
 public:
  // gpus_per_node[i]: how many GPUs node i has.
  explicit GangAllocator(std::vector<int> gpus_per_node);

  // Queues a gang. InvalidArgument when it can never be placed (see
  // CheckFeasible); AlreadyExists when the id is queued or placed.
  absl::Status Enqueue(GangRequest request);
  // Places the queued gangs that may start now and returns them.
  std::vector<GangPlacement> Schedule();
  // Drops a queued gang or frees a placed one's GPUs. Unknown ids are
  // ignored, so that every exit path may call it.
  void Release(std::string_view id);
  // Marks a gang placed before a restart as placed again;
  // FailedPrecondition when its GPUs overlap another placed gang's or do not
  // exist, AlreadyExists for a used id.
  absl::Status Restore(const GangPlacement& placement);
  // OK when a gang of `gpus_per_replica` fits the empty cluster;
  // InvalidArgument naming the replica and the largest node otherwise.
  absl::Status CheckFeasible(const std::vector<int>& gpus_per_replica) const;

  int total_gpus() const;
  int free_gpus() const;
  int queued_gangs() const;

 private:
  // Interim first-fit, strictly first-come implementation until branch
  // `gang` lands; replaced by it at merge.
  std::vector<int> gpus_per_node_;
  // held_[node][slot]: the gang holding the GPU, empty when free.
  std::vector<std::vector<std::string>> held_;
  std::deque<GangRequest> queue_;
  std::map<std::string, GangPlacement, std::less<>> placed_;
};

}  // namespace vernier::scheduler

#endif  // VERNIER_SCHEDULER_GANG_ALLOCATOR_H_
