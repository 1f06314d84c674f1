#ifndef VERNIER_TUNER_CLI_TRIAL_COUNT_FORMAT_H_
#define VERNIER_TUNER_CLI_TRIAL_COUNT_FORMAT_H_

#include <string>

#include "vernier/v1/job.pb.h"

namespace vernier::cli {

// "0 requested, 1 active, 5 succeeded, 1 failed, 0 infeasible, 0 stopped
// early" (", 2 cancelled" added when there are any), for describe.
std::string FormatTrialCounts(const v1::TrialCounts& counts);

// What became of a job's trials, for `jobs list`: "3 succeeded, 1 failed",
// "6 succeeded (4 resumed)"; "-" before any trial.
std::string FormatOutcome(const v1::TrainingOutput& output);

}  // namespace vernier::cli

#endif  // VERNIER_TUNER_CLI_TRIAL_COUNT_FORMAT_H_
