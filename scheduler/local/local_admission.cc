#include "scheduler/local/local_admission.h"

#include <algorithm>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace vernier::scheduler {
namespace {

std::string GpuCount(int count) { return absl::StrCat(count, count == 1 ? " GPU" : " GPUs"); }

}  // namespace

LocalAdmission::LocalAdmission(std::vector<int> gpus, PortRange ports,
                               std::function<bool(int)> usable, int port_offset,
                               GpuSharePolicy share)
    : gpus_(std::move(gpus)),
      usable_(std::move(usable)),
      gangs_(std::vector<int>{static_cast<int>(gpus_.size())}),
      queue_(std::move(share)),
      ports_(ports, port_offset) {}

std::string LocalAdmission::OwnerOf(GangTicket ticket) { return absl::StrCat("gang ", ticket.id); }

GangTicket LocalAdmission::NextTicket() { return GangTicket{++last_ticket_}; }

absl::Status LocalAdmission::CheckCapacity(const std::vector<v1::ReplicaSpec>& replicas,
                                           const GangOwner& owner) {
  const int node_gpus = static_cast<int>(gpus_.size());
  const std::string server_has =
      absl::StrCat("this server has ", GpuCount(node_gpus), " (`vernier serve --gpus` sets them)");
  const v1::ReplicaSpec* largest = nullptr;
  int total = 0;
  for (const v1::ReplicaSpec& replica : replicas) {
    total += replica.gpu_count();
    if (largest == nullptr || replica.gpu_count() > largest->gpu_count()) largest = &replica;
  }
  if (largest == nullptr || total == 0) return absl::OkStatus();
  if (total <= node_gpus) {
    absl::MutexLock lock(&mutex_);
    return queue_.CheckQuota(total, owner);
  }
  if (largest->gpu_count() > node_gpus) {
    return absl::InvalidArgumentError(
        absl::StrCat(largest->role(), "-", largest->index(), " needs ",
                     GpuCount(largest->gpu_count()), " (", largest->machine_type(), ") but ",
                     server_has));
  }
  return absl::InvalidArgumentError(
      absl::StrCat("a trial needs ", GpuCount(total), " in all, its replicas together, but ",
                   server_has, "; every replica of a trial runs here and they start together"));
}

absl::StatusOr<GangTicket> LocalAdmission::Request(const std::vector<int>& gpus_per_replica,
                                                   const GangOwner& owner) {
  absl::MutexLock lock(&mutex_);
  Gang gang;
  gang.replicas = static_cast<int>(gpus_per_replica.size());
  const int total = std::accumulate(gpus_per_replica.begin(), gpus_per_replica.end(), 0);
  if (total == 0) {
    const GangTicket ticket = NextTicket();
    // Nothing to wait for.
    gang.granted = true;
    tickets_[ticket] = std::move(gang);
    return ticket;
  }
  VERNIER_RETURN_IF_ERROR(gangs_.CheckFeasible(gpus_per_replica));
  VERNIER_RETURN_IF_ERROR(queue_.CheckQuota(total, owner));
  const GangTicket ticket = NextTicket();
  gang.gpus_per_replica = gpus_per_replica;
  queue_.Add(ticket.id, owner, total);
  tickets_[ticket] = std::move(gang);
  return ticket;
}

void LocalAdmission::Schedule() {
  absl::MutexLock lock(&mutex_);
  // The fair share's next gang starts when it fits; nothing passes it.
  while (std::optional<int64_t> next = queue_.Next()) {
    const GangTicket ticket{*next};
    auto found = tickets_.find(ticket);
    if (found == tickets_.end()) {
      queue_.Remove(*next);
      continue;
    }
    Gang& gang = found->second;
    const int total =
        std::accumulate(gang.gpus_per_replica.begin(), gang.gpus_per_replica.end(), 0);
    if (total > gangs_.free_gpus()) return;
    const std::string owner = OwnerOf(ticket);
    if (!gangs_.Enqueue({owner, gang.gpus_per_replica}).ok()) return;
    std::vector<GangPlacement> placed = gangs_.Schedule();
    if (placed.size() != 1 || placed.front().id != owner) {
      // One node with enough free GPUs always places it; never leave it
      // queued in the allocator, where it would pass the fair share.
      gangs_.Release(owner);
      return;
    }
    by_owner_[owner] = ticket;
    gang.granted = true;
    gang.placement = std::move(placed.front());
    queue_.Start(*next);
  }
}

bool LocalAdmission::IsGranted(GangTicket ticket) {
  absl::MutexLock lock(&mutex_);
  auto gang = tickets_.find(ticket);
  return gang != tickets_.end() && gang->second.granted;
}

absl::StatusOr<GangGrant> LocalAdmission::Grant(GangTicket ticket) {
  absl::MutexLock lock(&mutex_);
  auto found = tickets_.find(ticket);
  if (found == tickets_.end() || !found->second.granted) {
    return absl::FailedPreconditionError(absl::StrCat("gang ", ticket.id, " is not granted"));
  }
  const Gang& gang = found->second;
  GangGrant grant;
  grant.gpus.resize(gang.replicas);
  if (gang.placement.has_value()) {
    for (size_t i = 0; i < grant.gpus.size() && i < gang.placement->replicas.size(); ++i) {
      for (int slot : gang.placement->replicas[i].gpus) grant.gpus[i].push_back(gpus_[slot]);
    }
  }
  const std::string owner = OwnerOf(ticket);
  grant.ports = ports_.HeldBy(owner);
  if (static_cast<int>(grant.ports.size()) != gang.replicas) {
    ports_.Release(owner);
    VERNIER_ASSIGN_OR_RETURN(grant.ports, ports_.Acquire(owner, gang.replicas, usable_));
  }
  return grant;
}

absl::StatusOr<GangTicket> LocalAdmission::Restore(const v1::TrialRun& run,
                                                   const GangOwner& owner) {
  absl::MutexLock lock(&mutex_);
  const GangTicket ticket = NextTicket();
  const std::string allocator_id = OwnerOf(ticket);
  std::vector<int> ports;
  GangPlacement placement{allocator_id, {}};
  bool any_gpu = false;
  for (const v1::ReplicaStatus& replica : run.replicas()) {
    if (replica.port() != 0) ports.push_back(replica.port());
    ReplicaPlacement& slots = placement.replicas.emplace_back();
    for (int device : replica.gpus()) {
      auto found = std::find(gpus_.begin(), gpus_.end(), device);
      if (found == gpus_.end()) {
        return absl::FailedPreconditionError(absl::StrCat(
            "trial ", run.trial_id(), ": GPU ", device, " is not in this server's inventory"));
      }
      slots.gpus.push_back(static_cast<int>(found - gpus_.begin()));
      any_gpu = true;
    }
  }
  if (any_gpu) VERNIER_RETURN_IF_ERROR(gangs_.Restore(placement));
  if (!ports.empty()) {
    if (absl::Status status = ports_.Restore(allocator_id, ports); !status.ok()) {
      gangs_.Release(allocator_id);
      return status;
    }
  }
  Gang gang;
  gang.replicas = run.replicas_size();
  gang.granted = true;
  int held = 0;
  for (const ReplicaPlacement& replica : placement.replicas) {
    held += static_cast<int>(replica.gpus.size());
  }
  queue_.Hold(ticket.id, owner, held);
  if (any_gpu) {
    gang.placement = std::move(placement);
    by_owner_[allocator_id] = ticket;
  }
  tickets_[ticket] = std::move(gang);
  return ticket;
}

void LocalAdmission::Release(GangTicket ticket) {
  absl::MutexLock lock(&mutex_);
  const std::string owner = OwnerOf(ticket);
  gangs_.Release(owner);
  ports_.Release(owner);
  by_owner_.erase(owner);
  tickets_.erase(ticket);
  queue_.Remove(ticket.id);
}

std::optional<GangWait> LocalAdmission::Waiting(std::string_view job_id) {
  absl::MutexLock lock(&mutex_);
  return queue_.WaitOf(job_id, gangs_.total_gpus(), gangs_.free_gpus());
}

int LocalAdmission::free_gpus() {
  absl::MutexLock lock(&mutex_);
  return gangs_.free_gpus();
}

int LocalAdmission::held_ports() {
  absl::MutexLock lock(&mutex_);
  return ports_.held_count();
}

}  // namespace vernier::scheduler
