#ifndef VERNIER_TESTS_E2E_EARLY_STOPPING_GRID_H_
#define VERNIER_TESTS_E2E_EARLY_STOPPING_GRID_H_

namespace vernier::testing {

// A job whose median stopping rule must stop one trial, for the e2e tests of
// early stopping (early_stopping_job_test.cc, and container_job_test.cc in
// an image). GRID_SEARCH walks the 8 qualities in a fixed order (0.1, 0.6,
// 0.3, 0.8, 0.5, 0.2, 0.7, 0.4); with 2 trials in flight, the trial of
// quality 0.2 (kLaggingQuality) starts after 4 trials have ended, whose
// median is at least 0.4, so median stopping (after its default 3
// completed trials) must stop it. The trainer reports accuracy rising
// towards its --quality.
inline constexpr char kEarlyStoppingGridConfig[] =
    "trainingInput:\n"
    "  scaleTier: BASIC\n"
    "  hyperparameters:\n"
    "    goal: MAXIMIZE\n"
    "    hyperparameterMetricTag: accuracy\n"
    "    maxTrials: 8\n"
    "    maxParallelTrials: 2\n"
    "    enableTrialEarlyStopping: true\n"
    "    earlyStopping: {policy: MEDIAN_STOPPING}\n"
    "    algorithm: GRID_SEARCH\n"
    "    params:\n"
    "      - parameterName: quality\n"
    "        type: DISCRETE\n"
    "        discreteValues: [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]\n";

inline constexpr double kLaggingQuality = 0.2;

}  // namespace vernier::testing

#endif  // VERNIER_TESTS_E2E_EARLY_STOPPING_GRID_H_
