#ifndef VERNIER_SUGGEST_EARLY_STOPPING_ASHA_POLICY_H_
#define VERNIER_SUGGEST_EARLY_STOPPING_ASHA_POLICY_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "suggest/early_stopping/early_stopping_policy.h"
#include "vernier/v1/study.pb.h"

namespace vernier::suggest {

struct AshaOptions {
  v1::MetricSpec::Goal goal = v1::MetricSpec::MAXIMIZE;
  // Only the best 1/reduction_factor of the trials at a rung continue; must
  // be greater than 1.
  double reduction_factor = 3;
  // The first rung; values below 1 count as 1.
  int64_t grace_period = 1;
  // The trials' last step: a rung stands only where the trials it keeps can
  // still train reduction_factor times longer (rung * reduction_factor <=
  // max_step), as in successive halving, whose last decision is at
  // max_step / reduction_factor. 0: no last rung.
  int64_t max_step = 0;
  // Trials that must have reached a rung (the one judged included) before it
  // stops anyone; values below 1 count as 1.
  int min_trials = 1;
  // No trial is stopped before it has reported this step.
  int64_t start_step = 0;
};

// Asynchronous successive halving (Li et al., "A System for Massively
// Parallel Hyperparameter Tuning", MLSys 2020) as a stopping rule: rungs
// stand at grace_period * reduction_factor^k steps. A trial is judged at the
// highest rung it has reached, against every trial that has reached that
// rung so far (running, ended or stopped), and continues only while its
// value there is among the best ceil(n / reduction_factor) of those n trials;
// trials tied with the last one kept continue. A trial's value at a rung is
// its best value up to the first report at or past the rung, so trials that
// report at different steps still compare.
class AshaPolicy : public EarlyStoppingPolicy {
 public:
  explicit AshaPolicy(AshaOptions options) : options_(options) {}

  StoppingDecision Decide(const LearningCurve& trial,
                          std::span<const LearningCurve> others) const override;

  // The same, counting only the others for which `counts(trial_id)` holds
  // (asynchronous Hyperband judges a trial within its bracket).
  StoppingDecision DecideAmong(const LearningCurve& trial, std::span<const LearningCurve> others,
                               const std::function<bool(int64_t)>& counts) const;

  // The rungs at or below `step`, in increasing order.
  std::vector<int64_t> RungsUpTo(int64_t step) const;

 private:
  // The trial's value at `rung`; nullopt when it has not reached it.
  std::optional<double> ValueAtRung(const LearningCurve& curve, int64_t rung) const;

  AshaOptions options_;
};

}  // namespace vernier::suggest

#endif  // VERNIER_SUGGEST_EARLY_STOPPING_ASHA_POLICY_H_
