#include "scheduler/trial_run_start.h"

#include "absl/time/clock.h"
#include "common/timestamp.h"

namespace vernier::scheduler {

v1::TrialRun StartTrialRun(const TrialLaunch& launch) {
  v1::TrialRun run;
  run.set_trial_id(launch.trial_id);
  run.set_attempt(launch.attempt);
  run.set_trial_dir(launch.trial_dir);
  *run.mutable_launch_time() = ToTimestamp(absl::Now());
  return run;
}

}  // namespace vernier::scheduler
