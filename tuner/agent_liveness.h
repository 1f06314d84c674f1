#ifndef VERNIER_TUNER_AGENT_LIVENESS_H_
#define VERNIER_TUNER_AGENT_LIVENESS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace vernier::tuner {

// When each replica's agent was last heard from (a heartbeat, a measurement
// report, an exit report), to tell a silent agent (killed, SIGSTOPped, cut
// off from the service) from a quiet trainer, whatever backend runs it.
//
// Kept in memory only: after a restart of the service every running
// replica's clock starts afresh at its first check, so a restart never fails
// a trial whose agent was merely waiting for the service. Thread-safe; pure
// apart from its lock (the caller passes the time).
class AgentLiveness {
 public:
  struct Replica {
    std::string study;
    int64_t trial = 0;
    std::string role;
    int32_t index = 0;
    auto operator<=>(const Replica&) const = default;
  };

  void Heard(const Replica& replica, absl::Time now);
  // How long the replica's agent has been silent; a replica not heard of
  // since this object was made, or since Forget, starts its clock now.
  absl::Duration SilentFor(const Replica& replica, absl::Time now);
  // When the replica's agent was last heard, or its clock last started;
  // nullopt when neither happened since this object was made or since
  // Forget. Starts no clock.
  std::optional<absl::Time> LastHeard(const Replica& replica);
  // The replica is not running (yet, or any more): its clock stops.
  void Forget(const Replica& replica);
  // Forgets every replica of `study` whose trial is not in `running`.
  void RetainTrials(const std::string& study, const std::set<int64_t>& running);

 private:
  absl::Mutex mutex_;
  std::map<Replica, absl::Time> last_heard_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace vernier::tuner

#endif  // VERNIER_TUNER_AGENT_LIVENESS_H_
