#ifndef VERNIER_TUNER_STORAGE_TRIAL_STATES_H_
#define VERNIER_TUNER_STORAGE_TRIAL_STATES_H_

#include "vernier/v1/job.pb.h"
#include "vernier/v1/study.pb.h"

namespace vernier::tuner {

// A trial's state in the groups the service acts on.
// REQUESTED, ACTIVE or STOPPING: not ended yet.
bool IsPending(v1::Trial::State state);
// ACTIVE or STOPPING: handed out and being evaluated.
bool IsRunning(v1::Trial::State state);
// SUCCEEDED, FAILED, INFEASIBLE, STOPPED_EARLY or CANCELLED: final.
bool HasEnded(v1::Trial::State state);
// A job that SUCCEEDED, FAILED or was CANCELLED: final.
bool HasEnded(v1::Job::State state);

}  // namespace vernier::tuner

#endif  // VERNIER_TUNER_STORAGE_TRIAL_STATES_H_
