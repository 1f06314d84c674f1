#ifndef VERNIER_TRAINER_AGENT_REPLICA_LOCK_H_
#define VERNIER_TRAINER_AGENT_REPLICA_LOCK_H_

#include <sys/types.h>

#include <string>

#include "absl/status/statusor.h"

namespace vernier::agent {

// Makes sure one agent at a time runs a replica in a trial directory: an
// exclusive flock on TRIAL_DIR/.vernier/ROLE-INDEX/agent.lock, held for the
// agent's life and released by the kernel when it dies, however it dies.
// Two agents of one replica would run the trainer twice and number their
// measurements over each other in one log; a service that relaunched a
// trial it thought never started gets a second agent that waits instead.
class ReplicaLock {
 public:
  // UNAVAILABLE while another process holds it (the message names its pid);
  // FAILED_PRECONDITION when the file cannot be created.
  static absl::StatusOr<ReplicaLock> TryAcquire(const std::string& path);

  ReplicaLock(ReplicaLock&& other) noexcept;
  ReplicaLock& operator=(ReplicaLock&& other) noexcept;
  ReplicaLock(const ReplicaLock&) = delete;
  ReplicaLock& operator=(const ReplicaLock&) = delete;
  ~ReplicaLock();

 private:
  explicit ReplicaLock(int fd) : fd_(fd) {}

  int fd_ = -1;
};

}  // namespace vernier::agent

#endif  // VERNIER_TRAINER_AGENT_REPLICA_LOCK_H_
