#include "scheduler/gang_allocator.h"

#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"

namespace vernier::scheduler {

GangAllocator::GangAllocator(std::vector<int> gpus_per_node)
    : gpus_per_node_(std::move(gpus_per_node)) {
  for (int gpus : gpus_per_node_) held_.emplace_back(std::max(gpus, 0));
}

absl::Status GangAllocator::CheckFeasible(const std::vector<int>& gpus_per_replica) const {
  const int largest =
      gpus_per_node_.empty() ? 0 : *std::max_element(gpus_per_node_.begin(), gpus_per_node_.end());
  for (size_t i = 0; i < gpus_per_replica.size(); ++i) {
    if (gpus_per_replica[i] > largest) {
      return absl::InvalidArgumentError(absl::StrCat("replica ", i, " needs ", gpus_per_replica[i],
                                                     " GPUs but the largest node has ", largest));
    }
  }
  return absl::OkStatus();
}

absl::Status GangAllocator::Enqueue(GangRequest request) {
  if (absl::Status status = CheckFeasible(request.gpus_per_replica); !status.ok()) return status;
  if (placed_.contains(request.id) ||
      std::any_of(queue_.begin(), queue_.end(),
                  [&](const GangRequest& queued) { return queued.id == request.id; })) {
    return absl::AlreadyExistsError(absl::StrCat("gang ", request.id, " is already known"));
  }
  queue_.push_back(std::move(request));
  return absl::OkStatus();
}

std::vector<GangPlacement> GangAllocator::Schedule() {
  std::vector<GangPlacement> placed;
  while (!queue_.empty()) {
    const GangRequest& request = queue_.front();
    std::vector<std::vector<std::string>> trial = held_;
    GangPlacement placement{request.id, {}};
    bool fits = true;
    for (int want : request.gpus_per_replica) {
      std::optional<ReplicaPlacement> found;
      for (size_t node = 0; node < trial.size() && !found; ++node) {
        std::vector<int> free;
        for (size_t slot = 0; slot < trial[node].size(); ++slot) {
          if (trial[node][slot].empty()) free.push_back(static_cast<int>(slot));
        }
        if (static_cast<int>(free.size()) < want) continue;
        free.resize(want);
        for (int slot : free) trial[node][slot] = request.id;
        found = ReplicaPlacement{static_cast<int>(node), free};
      }
      if (!found) {
        fits = false;
        break;
      }
      placement.replicas.push_back(*found);
    }
    // First come, first served: nothing overtakes a gang that waits.
    if (!fits) break;
    held_ = std::move(trial);
    placed_[placement.id] = placement;
    placed.push_back(std::move(placement));
    queue_.pop_front();
  }
  return placed;
}

void GangAllocator::Release(std::string_view id) {
  std::erase_if(queue_, [&](const GangRequest& queued) { return queued.id == id; });
  auto placed = placed_.find(id);
  if (placed == placed_.end()) return;
  for (const ReplicaPlacement& replica : placed->second.replicas) {
    for (int slot : replica.gpus) held_[replica.node][slot].clear();
  }
  placed_.erase(placed);
}

absl::Status GangAllocator::Restore(const GangPlacement& placement) {
  if (placed_.contains(placement.id)) {
    return absl::AlreadyExistsError(absl::StrCat("gang ", placement.id, " is already placed"));
  }
  for (const ReplicaPlacement& replica : placement.replicas) {
    for (int slot : replica.gpus) {
      if (replica.node < 0 || replica.node >= static_cast<int>(held_.size()) || slot < 0 ||
          slot >= static_cast<int>(held_[replica.node].size()) ||
          !held_[replica.node][slot].empty()) {
        return absl::FailedPreconditionError(absl::StrCat(
            "gang ", placement.id, ": GPU ", slot, " of node ", replica.node, " is not free"));
      }
    }
  }
  for (const ReplicaPlacement& replica : placement.replicas) {
    for (int slot : replica.gpus) held_[replica.node][slot] = placement.id;
  }
  placed_[placement.id] = placement;
  return absl::OkStatus();
}

int GangAllocator::total_gpus() const {
  int total = 0;
  for (int gpus : gpus_per_node_) total += gpus;
  return total;
}

int GangAllocator::free_gpus() const {
  int free = 0;
  for (const auto& node : held_) {
    free += static_cast<int>(std::count(node.begin(), node.end(), std::string()));
  }
  return free;
}

int GangAllocator::queued_gangs() const { return static_cast<int>(queue_.size()); }

}  // namespace vernier::scheduler
