#include "scheduler/gang_allocator.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace vernier::scheduler {
namespace {

int MaxOf(const std::vector<int>& values) {
  return values.empty() ? 0 : *std::max_element(values.begin(), values.end());
}

std::vector<int> ClampedAtZero(std::vector<int> values) {
  for (int& value : values) value = std::max(value, 0);
  return values;
}

// Replica indexes, most GPUs first (ties in request order).
std::vector<int> MostGpusFirst(const std::vector<int>& gpus_per_replica) {
  std::vector<int> order(gpus_per_replica.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return gpus_per_replica[a] > gpus_per_replica[b]; });
  return order;
}

}  // namespace

GangAllocator::GangAllocator(std::vector<int> gpus_per_node, GangAllocatorOptions options)
    : options_(options),
      capacity_(ClampedAtZero(std::move(gpus_per_node))),
      free_buckets_(capacity_, MaxOf(capacity_)),
      open_buckets_(capacity_, MaxOf(capacity_)),
      packed_free_(capacity_, MaxOf(capacity_)),
      packed_open_(capacity_, MaxOf(capacity_)),
      capacity_buckets_(capacity_, MaxOf(capacity_)),
      whole_nodes_(MaxOf(capacity_)) {
  total_gpus_ = std::accumulate(capacity_.begin(), capacity_.end(), 0);
  free_gpus_ = total_gpus_;
  open_gpus_ = total_gpus_;
  for (int capacity : capacity_) {
    held_.emplace_back(capacity, 0);
    reserved_.emplace_back(capacity, 0);
  }
}

absl::Status GangAllocator::CheckFeasible(const std::vector<int>& gpus_per_replica) const {
  const int largest_node = MaxOf(capacity_);
  int total = 0;
  for (size_t replica = 0; replica < gpus_per_replica.size(); ++replica) {
    const int gpus = gpus_per_replica[replica];
    if (gpus < 0) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "replica %d asks for %d GPUs; the count cannot be negative", replica, gpus));
    }
    if (gpus > largest_node) {
      return absl::InvalidArgumentError(
          absl::StrFormat("replica %d needs %d GPUs on one node, but the largest node has %d",
                          replica, gpus, largest_node));
    }
    total += gpus;
  }
  if (total > total_gpus_) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "the replicas need %d GPUs in all, but the cluster has %d (largest node %d)", total,
        total_gpus_, largest_node));
  }
  std::vector<int> nodes;
  if (!Plan(gpus_per_replica, MostGpusFirst(gpus_per_replica), capacity_buckets_, /*scale=*/1,
            nodes, plan_taken_)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "the replicas' GPUs (%s) cannot be packed onto the nodes, each replica on one node "
        "(largest node %d)",
        absl::StrJoin(gpus_per_replica, ", "), largest_node));
  }
  return absl::OkStatus();
}

absl::Status GangAllocator::Enqueue(GangRequest request) {
  if (request.id.empty()) return absl::InvalidArgumentError("a gang needs an id");
  if (request.gpus_per_replica.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("gang ", request.id, " has no replicas"));
  }
  if (gangs_.contains(request.id)) {
    return absl::AlreadyExistsError(
        absl::StrCat("gang ", request.id, " is already queued or placed"));
  }
  if (absl::Status feasible = CheckFeasible(request.gpus_per_replica); !feasible.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("gang ", request.id, " can never be placed: ", feasible.message()));
  }
  const std::string id = request.id;
  Gang& gang = gangs_[id];
  gang.replica_order = MostGpusFirst(request.gpus_per_replica);
  gang.total_gpus =
      std::accumulate(request.gpus_per_replica.begin(), request.gpus_per_replica.end(), 0);
  gang.sequence = next_sequence_++;
  gang.placed_before = placed_gpus_;
  gang.largest_replica = request.gpus_per_replica[gang.replica_order.front()];
  gang.request = std::move(request);
  queue_.emplace(gang.sequence, &gang);
  if (gang.total_gpus == 0) ++queued_without_gpus_;
  whole_nodes_.Queued(gang.largest_replica);
  return absl::OkStatus();
}

bool GangAllocator::Plan(const std::vector<int>& gpus_per_replica, const std::vector<int>& order,
                         NodeBuckets& pool, int scale, std::vector<int>& nodes,
                         std::vector<Slot>& taken) {
  nodes.assign(gpus_per_replica.size(), 0);
  taken.clear();
  bool fits = true;
  for (int replica : order) {
    const int gpus = gpus_per_replica[replica];
    if (gpus == 0) break;  // The rest need none either.
    const int node = pool.SmallestAtLeast(gpus * scale);
    if (node < 0) {
      fits = false;
      break;
    }
    pool.Add(node, -gpus * scale);
    taken.push_back({node, gpus});
    nodes[replica] = node;
  }
  for (auto it = taken.rbegin(); it != taken.rend(); ++it) pool.Add(it->node, it->gpu * scale);
  return fits;
}

void GangAllocator::AddFree(int node, int delta) {
  free_buckets_.Add(node, delta);
  packed_free_.AddCount(node, delta);
}

void GangAllocator::AddOpen(int node, int delta) {
  open_buckets_.Add(node, delta);
  packed_open_.AddCount(node, delta);
}

void GangAllocator::CountGangOnNodes(const Gang& gang, int delta) {
  for (size_t replica = 0; replica < gang.placement.size(); ++replica) {
    const ReplicaPlacement& where = gang.placement[replica];
    if (where.gpus.empty()) continue;
    bool counted = false;
    for (size_t before = 0; before < replica && !counted; ++before) {
      counted = !gang.placement[before].gpus.empty() && gang.placement[before].node == where.node;
    }
    if (counted) continue;
    packed_free_.AddGangs(where.node, delta);
    packed_open_.AddGangs(where.node, delta);
  }
}

void GangAllocator::HoldSlot(int node, int gpu) {
  held_[node][gpu] = 1;
  --free_gpus_;
  AddFree(node, -1);
  if (reserved_[node][gpu]) {
    --reserved_free_;
  } else {
    --open_gpus_;
    AddOpen(node, -1);
  }
}

void GangAllocator::Take(Gang& gang, const std::vector<int>& nodes, bool may_use_reserved) {
  const std::vector<int>& wanted = gang.request.gpus_per_replica;
  gang.placement.assign(wanted.size(), ReplicaPlacement{});
  for (size_t replica = 0; replica < wanted.size(); ++replica) {
    ReplicaPlacement& placement = gang.placement[replica];
    placement.node = nodes[replica];
    if (wanted[replica] == 0) continue;
    const int node = nodes[replica];
    for (int gpu = 0;
         gpu < capacity_[node] && static_cast<int>(placement.gpus.size()) < wanted[replica];
         ++gpu) {
      if (held_[node][gpu] || (!may_use_reserved && reserved_[node][gpu])) continue;
      HoldSlot(node, gpu);
      placement.gpus.push_back(gpu);
    }
  }
  gang.placed = true;
  placed_gpus_ += gang.total_gpus;
  CountGangOnNodes(gang, 1);
}

void GangAllocator::TakeSlots(Gang& gang, std::vector<ReplicaPlacement> replicas) {
  for (const ReplicaPlacement& replica : replicas) {
    for (int gpu : replica.gpus) HoldSlot(replica.node, gpu);
  }
  gang.placement = std::move(replicas);
  gang.placed = true;
  placed_gpus_ += gang.total_gpus;
  CountGangOnNodes(gang, 1);
}

void GangAllocator::ReserveSlot(int node, int gpu) {
  reserved_[node][gpu] = 1;
  ++reserved_slots_;
  if (!held_[node][gpu]) {
    ++reserved_free_;
    --open_gpus_;
    AddOpen(node, -1);
  }
}

void GangAllocator::UnreserveSlot(int node, int gpu) {
  reserved_[node][gpu] = 0;
  --reserved_slots_;
  if (!held_[node][gpu]) {
    --reserved_free_;
    ++open_gpus_;
    AddOpen(node, 1);
  }
}

int GangAllocator::UnreservedSlots(int node) const {
  return static_cast<int>(std::count(reserved_[node].begin(), reserved_[node].end(), 0));
}

void GangAllocator::ReserveOn(ReplicaPlacement& replica, int node, int gpus) {
  replica.node = node;
  // Free slots first, so that the head waits for as few gangs as can be.
  for (int pass = 0; pass < 2; ++pass) {
    for (int gpu = 0; gpu < capacity_[node] && static_cast<int>(replica.gpus.size()) < gpus;
         ++gpu) {
      if (reserved_[node][gpu] || (pass == 0 && held_[node][gpu])) continue;
      ReserveSlot(node, gpu);
      replica.gpus.push_back(gpu);
    }
  }
}

void GangAllocator::Reserve(const Gang& head) {
  const std::vector<int>& wanted = head.request.gpus_per_replica;
  reservation_.assign(wanted.size(), ReplicaPlacement{});
  bool packed = true;
  for (int replica : head.replica_order) {
    if (wanted[replica] == 0) break;
    // The node with the most open GPUs whose unreserved slots can hold the
    // replica.
    int found = -1;
    for (int count = open_buckets_.max_count(); count >= 0 && found < 0; --count) {
      for (int node : open_buckets_.NodesWith(count)) {
        if (UnreservedSlots(node) >= wanted[replica]) {
          found = node;
          break;
        }
      }
    }
    if (found < 0) {
      packed = false;
      break;
    }
    ReserveOn(reservation_[replica], found, wanted[replica]);
  }
  if (!packed) {
    // That greedy choice failed to pack: take the packing that CheckFeasible
    // found on the empty cluster.
    ClearReservation();
    reservation_.assign(wanted.size(), ReplicaPlacement{});
    std::vector<int> nodes;
    Plan(wanted, head.replica_order, capacity_buckets_, /*scale=*/1, nodes, plan_taken_);
    for (int replica : head.replica_order) {
      if (wanted[replica] == 0) break;
      ReserveOn(reservation_[replica], nodes[replica], wanted[replica]);
    }
  }
  reserved_for_ = &head;
  backfilled_past_head_ = 0;
}

void GangAllocator::ImproveReservation() {
  // Aging with bounded backfill: a young head leaves whole free nodes to
  // the gangs behind it.
  const bool may_move = options_.policy == BackfillPolicy::kHeadReservation ||
                        backfilled_past_head_ >= static_cast<int64_t>(options_.patience_per_gpu) *
                                                     reserved_for_->total_gpus;
  for (ReplicaPlacement& replica : reservation_) {
    const int gpus = static_cast<int>(replica.gpus.size());
    const int held =
        static_cast<int>(std::count_if(replica.gpus.begin(), replica.gpus.end(),
                                       [&](int gpu) { return held_[replica.node][gpu]; }));
    if (held == 0) continue;
    const int elsewhere = may_move ? open_buckets_.SmallestAtLeast(gpus) : -1;
    if (elsewhere >= 0 && elsewhere != replica.node) {
      for (int gpu : replica.gpus) UnreserveSlot(replica.node, gpu);
      replica.gpus.clear();
      ReserveOn(replica, elsewhere, gpus);
      continue;
    }
    // Swap held slots for open ones on the same node.
    const int node = replica.node;
    for (int& slot : replica.gpus) {
      if (open_buckets_.count(node) == 0) break;
      if (!held_[node][slot]) continue;
      int open = 0;
      while (reserved_[node][open] || held_[node][open]) ++open;
      UnreserveSlot(node, slot);
      ReserveSlot(node, open);
      slot = open;
    }
    std::sort(replica.gpus.begin(), replica.gpus.end());
  }
}

void GangAllocator::ClearReservation() {
  for (const ReplicaPlacement& replica : reservation_) {
    for (int gpu : replica.gpus) UnreserveSlot(replica.node, gpu);
  }
  reservation_.clear();
  reserved_for_ = nullptr;
}

void GangAllocator::Dequeue(Gang& gang) {
  queue_.erase(gang.sequence);
  if (gang.total_gpus == 0) --queued_without_gpus_;
  whole_nodes_.Dequeued(gang.largest_replica);
}

bool GangAllocator::PlanGang(const Gang& gang, bool free_gpus) {
  if (gang.total_gpus > (free_gpus ? free_gpus_ : open_gpus_)) return false;
  const std::vector<int>& wanted = gang.request.gpus_per_replica;
  if (options_.pack_busy_nodes) {
    PackedNodeBuckets& packed = free_gpus ? packed_free_ : packed_open_;
    return Plan(wanted, gang.replica_order, packed.keys(), packed.scale(), plan_nodes_,
                plan_taken_);
  }
  return Plan(wanted, gang.replica_order, free_gpus ? free_buckets_ : open_buckets_,
              /*scale=*/1, plan_nodes_, plan_taken_);
}

bool GangAllocator::TryPlaceHead(Gang& head) {
  if (reserved_for_ == &head && reserved_free_ == reserved_slots_) {
    std::vector<ReplicaPlacement> replicas = reservation_;
    ClearReservation();
    TakeSlots(head, std::move(replicas));
    Dequeue(head);
    return true;
  }
  if (!PlanGang(head, /*free_gpus=*/true)) return false;
  // Whatever it takes, reserved or not, is its own to take.
  Take(head, plan_nodes_, /*may_use_reserved=*/true);
  if (reserved_for_ != nullptr) ClearReservation();
  Dequeue(head);
  return true;
}

bool GangAllocator::TryBackfill(Gang& gang) {
  if (!PlanGang(gang, /*free_gpus=*/false)) return false;
  if (options_.keep_whole_nodes) {
    const std::vector<int>& wanted = gang.request.gpus_per_replica;
    for (size_t replica = 0; replica < wanted.size(); ++replica) {
      const int node = plan_nodes_[replica];
      if (wanted[replica] > 0 &&
          !whole_nodes_.MayTake(gang.largest_replica, open_buckets_.count(node), capacity_[node])) {
        return false;
      }
    }
  }
  Take(gang, plan_nodes_, /*may_use_reserved=*/false);
  backfilled_past_head_ += gang.total_gpus;
  Dequeue(gang);
  return true;
}

void GangAllocator::BackfillBehindHead(const Gang& head, std::vector<GangPlacement>& placed) {
  const int64_t head_waited = placed_gpus_ - head.placed_before;
  const double exponent = std::max(options_.behind_exponent, 0.0);
  const double head_scale = std::pow(head.total_gpus, exponent);
  std::vector<std::vector<int>> failed_shapes;
  std::vector<int> shape;
  for (auto it = queue_.begin(); it != queue_.end() && open_gpus_ > 0;) {
    Gang& gang = *(it++)->second;
    if (&gang == &head || gang.total_gpus == 0 || gang.total_gpus > open_gpus_) continue;
    // waited / its GPUs^e >= head_waited / the head's GPUs^e.
    if (static_cast<double>(placed_gpus_ - gang.placed_before) * head_scale <
        static_cast<double>(head_waited) * std::pow(gang.total_gpus, exponent)) {
      continue;
    }
    shape.clear();
    for (int replica : gang.replica_order) shape.push_back(gang.request.gpus_per_replica[replica]);
    if (std::find(failed_shapes.begin(), failed_shapes.end(), shape) != failed_shapes.end()) {
      continue;
    }
    if (TryBackfill(gang)) {
      placed.push_back(GangPlacement{gang.request.id, gang.placement});
    } else {
      failed_shapes.push_back(shape);
    }
  }
}

std::vector<GangPlacement> GangAllocator::Schedule() {
  std::vector<GangPlacement> placed;
  auto report = [&](const Gang& gang) {
    placed.push_back(GangPlacement{gang.request.id, gang.placement});
  };
  while (!queue_.empty()) {
    Gang& head = *queue_.begin()->second;
    if (!TryPlaceHead(head)) {
      if (options_.behind_first) BackfillBehindHead(head, placed);
      if (reserved_for_ != &head) {
        if (reserved_for_ != nullptr) ClearReservation();
        Reserve(head);
      } else {
        ImproveReservation();
      }
      if (reserved_free_ == reserved_slots_) continue;  // Placed on it next.
      break;
    }
    report(head);
  }
  if (queue_.size() <= 1) return placed;
  // Within one call GPUs are only taken, so a replica shape that failed
  // fails again: remember the shapes (sorted GPU counts) that did not fit.
  // (One kept off a whole node might fit once the gangs that need whole
  // nodes are placed; it is tried again at the next call.)
  std::vector<std::vector<int>> failed_shapes;
  std::vector<int> shape;
  for (auto it = std::next(queue_.begin()); it != queue_.end();) {
    if (open_gpus_ == 0 && queued_without_gpus_ == 0) break;
    Gang& gang = *(it++)->second;
    if (gang.total_gpus > open_gpus_) continue;
    shape.clear();
    for (int replica : gang.replica_order) shape.push_back(gang.request.gpus_per_replica[replica]);
    if (std::find(failed_shapes.begin(), failed_shapes.end(), shape) != failed_shapes.end()) {
      continue;
    }
    if (TryBackfill(gang)) {
      report(gang);
    } else {
      failed_shapes.push_back(shape);
    }
  }
  return placed;
}

void GangAllocator::Release(std::string_view id) {
  auto found = gangs_.find(std::string(id));
  if (found == gangs_.end()) return;
  Gang& gang = found->second;
  if (gang.placed) {
    CountGangOnNodes(gang, -1);
    for (const ReplicaPlacement& replica : gang.placement) {
      for (int gpu : replica.gpus) {
        held_[replica.node][gpu] = 0;
        ++free_gpus_;
        AddFree(replica.node, 1);
        if (reserved_[replica.node][gpu]) {
          ++reserved_free_;
        } else {
          ++open_gpus_;
          AddOpen(replica.node, 1);
        }
      }
    }
  } else {
    if (reserved_for_ == &gang) ClearReservation();
    Dequeue(gang);
  }
  gangs_.erase(found);
}

absl::Status GangAllocator::Restore(const GangPlacement& placement) {
  if (placement.id.empty()) return absl::InvalidArgumentError("a gang needs an id");
  if (gangs_.contains(placement.id)) {
    return absl::AlreadyExistsError(
        absl::StrCat("gang ", placement.id, " is already queued or placed"));
  }
  std::vector<std::vector<char>> seen(capacity_.size());
  for (size_t replica = 0; replica < placement.replicas.size(); ++replica) {
    const ReplicaPlacement& where = placement.replicas[replica];
    if (where.gpus.empty()) continue;
    if (where.node < 0 || where.node >= static_cast<int>(capacity_.size())) {
      return absl::FailedPreconditionError(
          absl::StrFormat("gang %s replica %d is on node %d, which does not exist (%d nodes)",
                          placement.id, replica, where.node, capacity_.size()));
    }
    std::vector<char>& node_seen = seen[where.node];
    node_seen.resize(capacity_[where.node], 0);
    for (int gpu : where.gpus) {
      if (gpu < 0 || gpu >= capacity_[where.node]) {
        return absl::FailedPreconditionError(
            absl::StrFormat("gang %s replica %d holds GPU %d of node %d, which has %d GPUs",
                            placement.id, replica, gpu, where.node, capacity_[where.node]));
      }
      if (held_[where.node][gpu] || node_seen[gpu]) {
        return absl::FailedPreconditionError(absl::StrFormat(
            "gang %s replica %d holds GPU %d of node %d, which another replica already holds",
            placement.id, replica, gpu, where.node));
      }
      node_seen[gpu] = 1;
    }
  }
  Gang& gang = gangs_[placement.id];
  gang.request.id = placement.id;
  for (const ReplicaPlacement& where : placement.replicas) {
    gang.request.gpus_per_replica.push_back(static_cast<int>(where.gpus.size()));
  }
  gang.replica_order = MostGpusFirst(gang.request.gpus_per_replica);
  gang.total_gpus = std::accumulate(gang.request.gpus_per_replica.begin(),
                                    gang.request.gpus_per_replica.end(), 0);
  gang.sequence = next_sequence_++;
  TakeSlots(gang, placement.replicas);
  return absl::OkStatus();
}

int GangAllocator::total_gpus() const { return total_gpus_; }

int GangAllocator::free_gpus() const { return free_gpus_; }

int GangAllocator::queued_gangs() const { return static_cast<int>(queue_.size()); }

}  // namespace vernier::scheduler
