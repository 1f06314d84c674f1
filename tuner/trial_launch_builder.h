#ifndef VERNIER_TUNER_TRIAL_LAUNCH_BUILDER_H_
#define VERNIER_TUNER_TRIAL_LAUNCH_BUILDER_H_

#include <chrono>
#include <string>

#include "scheduler/backend.h"
#include "vernier/v1/job.pb.h"
#include "vernier/v1/study.pb.h"

namespace vernier::tuner {

struct LaunchSettings {
  std::string agent_path;
  // Where agents reach the service, e.g. 127.0.0.1:7730.
  std::string server_address;
  std::chrono::milliseconds grace_period{10000};
  // How often agents send heartbeats; well inside the service's agent timeout.
  std::chrono::milliseconds heartbeat_interval{5000};
};

// The trainer's flag for one hyperparameter: --name=value, numbers in their
// shortest exact form (a DISCRETE 32 is "32", not "32.0").
std::string ParameterFlag(const v1::ParameterValue& value);

// What the scheduler starts for one trial: the master replica, as
//   AGENT --server ... --study ... --trial N ... -- COMMAND ARGS
//         --name=value ... --job-dir=JOB_DIR/N
// (with --metric-regex when the job has a metricRegex)
// with its log at JOB_DIR/N/logs/master-0.log.
scheduler::TrialLaunch BuildTrialLaunch(const v1::Job& job, const v1::Study& study,
                                        const v1::Trial& trial, const LaunchSettings& settings,
                                        int attempt);

}  // namespace vernier::tuner

#endif  // VERNIER_TUNER_TRIAL_LAUNCH_BUILDER_H_
