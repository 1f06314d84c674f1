#ifndef VERNIER_SCHEDULER_REPLICA_STATE_H_
#define VERNIER_SCHEDULER_REPLICA_STATE_H_

#include "vernier/v1/job.pb.h"

namespace vernier::scheduler {

// Whether the replica's end is known (EXITED or LOST): a backend never
// describes it again, and its state never changes.
bool ReplicaEnded(const v1::ReplicaStatus& replica);

}  // namespace vernier::scheduler

#endif  // VERNIER_SCHEDULER_REPLICA_STATE_H_
