#include "scheduler/replica_state.h"

namespace vernier::scheduler {

bool ReplicaEnded(const v1::ReplicaStatus& replica) {
  return replica.state() == v1::ReplicaStatus::EXITED || replica.state() == v1::ReplicaStatus::LOST;
}

}  // namespace vernier::scheduler
