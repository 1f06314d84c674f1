#ifndef VERNIER_TUNER_STORAGE_JOB_COORDINATION_H_
#define VERNIER_TUNER_STORAGE_JOB_COORDINATION_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "vernier/v1/agent_service.pb.h"

namespace vernier::storage {

// A server's lease of one job: while it holds it, it alone drives the job.
struct JobLease {
  std::string job_id;
  // The fencing token: grows by one each time the lease changes hands.
  // Writes fenced with an older one are refused (ScopedWriteFence).
  int64_t token = 0;
};

// What several servers sharing one store need to share the work of running
// jobs: job leases, the servers alive and where their agents report, and
// what agents told a server that does not drive their job. Durations are
// measured by the store's clock (the database server's, for PostgreSQL), so
// servers whose clocks disagree still agree on who holds what.
class JobCoordination {
 public:
  virtual ~JobCoordination() = default;

  // Takes or renews, for `holder`, the lease of each of `job_ids` that is
  // free, expired, or `holder`'s already, until `ttl` from now. Returns
  // every lease `holder` holds among them afterwards, with its token; the
  // others are held by another server.
  virtual absl::StatusOr<std::vector<JobLease>> AcquireJobLeases(
      std::string_view holder, std::span<const std::string> job_ids, absl::Duration ttl) = 0;
  // Ends `holder`'s leases of `job_ids` now, so that another server takes
  // them at its next pass. Leases held by others are left alone.
  virtual absl::Status ReleaseJobLeases(std::string_view holder,
                                        std::span<const std::string> job_ids) = 0;

  // `server_id` is alive, and its agents report to `agent_address`, for the
  // next `ttl`.
  virtual absl::Status RecordServer(std::string_view server_id, std::string_view agent_address,
                                    absl::Duration ttl) = 0;
  // The agent addresses of the servers alive now, by server id.
  virtual absl::StatusOr<std::vector<std::string>> ListLiveServerAddresses() = 0;

  // A replica's agent was heard by a server that does not drive its job.
  virtual absl::Status RecordAgentContact(std::string_view job_id, int64_t trial_id,
                                          std::string_view replica) = 0;
  // How long ago any server last recorded the replica's agent; nullopt if
  // none ever did.
  virtual absl::StatusOr<std::optional<absl::Duration>> AgentContactAge(
      std::string_view job_id, int64_t trial_id, std::string_view replica) = 0;

  // An agent's exit report that reached a server not driving its job, kept
  // for the one that does.
  virtual absl::Status QueueReplicaExit(std::string_view job_id,
                                        const v1::ReportExitRequest& report) = 0;
  // Removes and returns the job's queued exit reports, oldest first.
  virtual absl::StatusOr<std::vector<v1::ReportExitRequest>> TakeReplicaExits(
      std::string_view job_id) = 0;
};

}  // namespace vernier::storage

#endif  // VERNIER_TUNER_STORAGE_JOB_COORDINATION_H_
