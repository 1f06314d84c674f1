#include "tuner/replica_resources.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace vernier::tuner {
namespace {

bool HasPrefix(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

}  // namespace

ReplicaResources::ReplicaResources(std::vector<int> gpus, scheduler::PortRange ports,
                                   std::function<bool(int)> usable, int port_offset)
    : gpus_(std::move(gpus)),
      usable_(std::move(usable)),
      gangs_(std::vector<int>{static_cast<int>(gpus_.size())}),
      ports_(ports, port_offset) {}

absl::Status ReplicaResources::Enqueue(const std::string& key,
                                       const std::vector<int>& gpus_per_replica) {
  absl::MutexLock lock(&mutex_);
  if (absl::Status status = gangs_.Enqueue({key, gpus_per_replica}); !status.ok()) return status;
  gang_keys_.insert(key);
  return absl::OkStatus();
}

void ReplicaResources::Schedule() {
  absl::MutexLock lock(&mutex_);
  for (scheduler::GangPlacement& placement : gangs_.Schedule()) {
    granted_.insert(placement.id);
    placed_[placement.id] = std::move(placement);
  }
}

std::vector<std::string> ReplicaResources::TakeGranted(std::string_view prefix) {
  absl::MutexLock lock(&mutex_);
  std::vector<std::string> taken;
  for (auto it = granted_.lower_bound(prefix); it != granted_.end() && HasPrefix(*it, prefix);) {
    taken.push_back(*it);
    it = granted_.erase(it);
  }
  return taken;
}

absl::Status ReplicaResources::Rename(const std::string& from, const std::string& to) {
  absl::MutexLock lock(&mutex_);
  auto placed = placed_.find(from);
  if (placed == placed_.end()) {
    return absl::NotFoundError(absl::StrCat("no GPUs are granted to ", from));
  }
  scheduler::GangPlacement placement = placed->second;
  placement.id = to;
  gangs_.Release(from);
  if (absl::Status status = gangs_.Restore(placement); !status.ok()) return status;
  placed_.erase(placed);
  gang_keys_.erase(from);
  gang_keys_.insert(to);
  placed_[to] = std::move(placement);
  return absl::OkStatus();
}

int ReplicaResources::CountGangs(std::string_view prefix) {
  absl::MutexLock lock(&mutex_);
  int count = 0;
  for (auto it = gang_keys_.lower_bound(prefix); it != gang_keys_.end() && HasPrefix(*it, prefix);
       ++it) {
    ++count;
  }
  return count;
}

std::vector<std::vector<int>> ReplicaResources::GpusOf(const std::string& key, size_t replicas) {
  absl::MutexLock lock(&mutex_);
  std::vector<std::vector<int>> devices(replicas);
  auto placed = placed_.find(key);
  if (placed == placed_.end()) return devices;
  for (size_t i = 0; i < replicas && i < placed->second.replicas.size(); ++i) {
    for (int slot : placed->second.replicas[i].gpus) devices[i].push_back(gpus_[slot]);
  }
  return devices;
}

absl::StatusOr<std::vector<int>> ReplicaResources::Ports(const std::string& key, int count) {
  absl::MutexLock lock(&mutex_);
  std::vector<int> held = ports_.HeldBy(key);
  if (static_cast<int>(held.size()) == count) return held;
  ports_.Release(key);
  return ports_.Acquire(key, count, usable_);
}

absl::Status ReplicaResources::Restore(const std::string& key, const v1::TrialRun& run) {
  absl::MutexLock lock(&mutex_);
  std::vector<int> ports;
  scheduler::GangPlacement placement{key, {}};
  bool any_gpu = false;
  for (const v1::ReplicaStatus& replica : run.replicas()) {
    if (replica.port() != 0) ports.push_back(replica.port());
    scheduler::ReplicaPlacement& slots = placement.replicas.emplace_back();
    for (int device : replica.gpus()) {
      auto found = std::find(gpus_.begin(), gpus_.end(), device);
      if (found == gpus_.end()) {
        return absl::FailedPreconditionError(
            absl::StrCat(key, ": GPU ", device, " is not in this server's inventory"));
      }
      slots.gpus.push_back(static_cast<int>(found - gpus_.begin()));
      any_gpu = true;
    }
  }
  if (!ports.empty() && ports_.HeldBy(key).empty()) {
    if (absl::Status status = ports_.Restore(key, ports); !status.ok()) return status;
  }
  if (!any_gpu || placed_.contains(key)) return absl::OkStatus();
  if (absl::Status status = gangs_.Restore(placement); !status.ok()) return status;
  gang_keys_.insert(key);
  placed_[key] = std::move(placement);
  return absl::OkStatus();
}

void ReplicaResources::Release(const std::string& key) {
  absl::MutexLock lock(&mutex_);
  gangs_.Release(key);
  ports_.Release(key);
  gang_keys_.erase(key);
  placed_.erase(key);
  granted_.erase(key);
}

void ReplicaResources::ReleasePrefix(std::string_view prefix) {
  std::vector<std::string> keys;
  {
    absl::MutexLock lock(&mutex_);
    for (auto it = gang_keys_.lower_bound(prefix); it != gang_keys_.end() && HasPrefix(*it, prefix);
         ++it) {
      keys.push_back(*it);
    }
    for (const std::string& owner : ports_.Owners()) {
      if (HasPrefix(owner, prefix)) keys.push_back(owner);
    }
  }
  for (const std::string& key : keys) Release(key);
}

bool ReplicaResources::Holds(const std::string& key) {
  absl::MutexLock lock(&mutex_);
  return placed_.contains(key) || gang_keys_.contains(key) || !ports_.HeldBy(key).empty();
}

int ReplicaResources::free_gpus() {
  absl::MutexLock lock(&mutex_);
  return gangs_.free_gpus();
}

}  // namespace vernier::tuner
