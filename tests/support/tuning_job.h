#ifndef VERNIER_TESTS_SUPPORT_TUNING_JOB_H_
#define VERNIER_TESTS_SUPPORT_TUNING_JOB_H_

#include <string>

#include "vernier/v1/job.pb.h"
#include "vernier/v1/study.pb.h"

namespace vernier::testing {

// A tuning job for unit tests of the tuner: `/bin/true` as its trainer,
// job dir DIR/JOB_ID, one replica (the default tier), RANDOM_SEARCH over lr
// in [0.01, 0.1] for the largest `accuracy`, `max_trials` trials,
// `parallel` at a time.
v1::Job TuningJob(const std::string& job_id, const std::string& dir, int max_trials = 4,
                  int parallel = 1);
// TuningJob on the BASIC tier whose trainer counts its launch in its trial
// dir (the file `launches`, one line a launch), then prints `steps` steps
// of `accuracy`, one every half second.
v1::Job CountingJob(const std::string& job_id, const std::string& dir, int max_trials, int parallel,
                    int steps);
// A measurement at step 1 of the objective TuningJob reports.
v1::Measurement AccuracyMeasurement(double accuracy);

}  // namespace vernier::testing

#endif  // VERNIER_TESTS_SUPPORT_TUNING_JOB_H_
