#ifndef VERNIER_SCHEDULER_TRIAL_RUN_START_H_
#define VERNIER_SCHEDULER_TRIAL_RUN_START_H_

#include "scheduler/backend.h"
#include "vernier/v1/job.pb.h"

namespace vernier::scheduler {

// The TrialRun a backend answers Submit with, before its replicas: the
// launch's trial, attempt and directory, launched now.
v1::TrialRun StartTrialRun(const TrialLaunch& launch);

}  // namespace vernier::scheduler

#endif  // VERNIER_SCHEDULER_TRIAL_RUN_START_H_
