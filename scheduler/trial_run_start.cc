#include "scheduler/trial_run_start.h"

#include <chrono>

namespace vernier::scheduler {

v1::TrialRun StartTrialRun(const TrialLaunch& launch) {
  v1::TrialRun run;
  run.set_trial_id(launch.trial_id);
  run.set_attempt(launch.attempt);
  run.set_trial_dir(launch.trial_dir);
  const auto since_epoch = std::chrono::system_clock::now().time_since_epoch();
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(since_epoch);
  run.mutable_launch_time()->set_seconds(seconds.count());
  run.mutable_launch_time()->set_nanos(static_cast<int32_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(since_epoch - seconds).count()));
  return run;
}

}  // namespace vernier::scheduler
