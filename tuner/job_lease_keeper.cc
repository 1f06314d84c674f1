#include "tuner/job_lease_keeper.h"

#include <set>

#include "spdlog/spdlog.h"
#include "tuner/storage/transient_error.h"

namespace vernier::tuner {

JobLeaseKeeper::JobLeaseKeeper(storage::JobCoordination& store, std::string server_id,
                               absl::Duration ttl, Clock clock)
    : store_(store), server_id_(std::move(server_id)), ttl_(ttl), clock_(std::move(clock)) {}

JobLeaseKeeper::Changes JobLeaseKeeper::Renew(const std::vector<std::string>& job_ids) {
  // Taken before asking: the store's expiry counts from a later moment.
  const absl::Time asked_at = clock_();
  absl::StatusOr<std::vector<storage::JobLease>> leases =
      store_.AcquireJobLeases(server_id_, job_ids, ttl_);
  Changes changes;
  absl::MutexLock lock(&mutex_);
  if (!leases.ok()) {
    // While the store is away its outage is logged once (StoreOutage).
    if (storage::IsTransientStoreError(leases.status())) {
      spdlog::debug("server {} cannot renew its job leases: {}", server_id_,
                    leases.status().ToString());
    } else {
      spdlog::error("server {} cannot renew its job leases: {}", server_id_,
                    leases.status().ToString());
    }
    for (auto it = held_.begin(); it != held_.end();) {
      if (asked_at - it->second.renewed_at >= ttl_) {
        changes.lost.push_back(it->first);
        it = held_.erase(it);
      } else {
        ++it;
      }
    }
    return changes;
  }
  std::map<std::string, Held, std::less<>> now_held;
  for (const storage::JobLease& lease : *leases) {
    auto before = held_.find(lease.job_id);
    // A new token means someone else held the lease in between: whatever
    // this server knew of the job is stale.
    if (before == held_.end() || before->second.token != lease.token) {
      if (before != held_.end()) changes.lost.push_back(lease.job_id);
      changes.gained.push_back(lease.job_id);
    }
    now_held[lease.job_id] = {lease.token, asked_at};
  }
  const std::set<std::string> unfinished(job_ids.begin(), job_ids.end());
  for (const auto& [job_id, held] : held_) {
    // A job that ended needs no lease; one still unfinished went to another.
    if (!now_held.contains(job_id) && unfinished.contains(job_id)) changes.lost.push_back(job_id);
  }
  held_ = std::move(now_held);
  return changes;
}

std::optional<storage::WriteFence> JobLeaseKeeper::FenceOf(std::string_view job_id) {
  absl::MutexLock lock(&mutex_);
  auto held = held_.find(job_id);
  if (held == held_.end()) return std::nullopt;
  return storage::WriteFence{std::string(job_id), server_id_, held->second.token};
}

void JobLeaseKeeper::ReleaseAll() {
  std::vector<std::string> job_ids;
  {
    absl::MutexLock lock(&mutex_);
    for (const auto& [job_id, held] : held_) job_ids.push_back(job_id);
    held_.clear();
  }
  if (job_ids.empty()) return;
  if (absl::Status status = store_.ReleaseJobLeases(server_id_, job_ids); !status.ok()) {
    spdlog::warn("server {} could not give back its {} job leases (they expire by themselves): {}",
                 server_id_, job_ids.size(), status.ToString());
  }
}

}  // namespace vernier::tuner
