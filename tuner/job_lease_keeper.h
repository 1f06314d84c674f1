#ifndef VERNIER_TUNER_JOB_LEASE_KEEPER_H_
#define VERNIER_TUNER_JOB_LEASE_KEEPER_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "tuner/clock.h"
#include "tuner/storage/job_coordination.h"
#include "tuner/storage/scoped_write_fence.h"

namespace vernier::tuner {

// The job leases this server holds (storage::JobCoordination): which jobs it
// drives, with the fencing token its writes carry. Renew takes the free and
// expired leases among the unfinished jobs and renews its own; a lease it
// could not renew for `ttl` (the store unreachable, the server stalled) is
// counted lost here too, since another server may hold it by then.
// Thread-safe.
class JobLeaseKeeper {
 public:
  JobLeaseKeeper(storage::JobCoordination& store, std::string server_id, absl::Duration ttl,
                 Clock clock);

  struct Changes {
    // Jobs this server drives from now on.
    std::vector<std::string> gained;
    // Jobs it drove and no longer does.
    std::vector<std::string> lost;
  };
  // Takes or renews the leases of `job_ids` (the unfinished jobs); leases of
  // jobs not among them are forgotten (the job ended). On a store error the
  // leases renewed less than `ttl` ago are kept; older ones are lost.
  Changes Renew(const std::vector<std::string>& job_ids);
  // The fence for writes about `job_id`, if this server drives it.
  std::optional<storage::WriteFence> FenceOf(std::string_view job_id);
  // Gives every lease back (a clean stop), so another server takes the jobs
  // at once rather than after `ttl`.
  void ReleaseAll();

  const std::string& server_id() const { return server_id_; }
  absl::Duration ttl() const { return ttl_; }

 private:
  struct Held {
    int64_t token = 0;
    absl::Time renewed_at;
  };

  storage::JobCoordination& store_;
  const std::string server_id_;
  const absl::Duration ttl_;
  Clock clock_;
  absl::Mutex mutex_;
  std::map<std::string, Held, std::less<>> held_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace vernier::tuner

#endif  // VERNIER_TUNER_JOB_LEASE_KEEPER_H_
