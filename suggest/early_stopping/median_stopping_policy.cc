#include "suggest/early_stopping/median_stopping_policy.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "absl/strings/str_format.h"

namespace vernier::suggest {

StoppingDecision MedianStoppingPolicy::Decide(const LearningCurve& trial,
                                              std::span<const LearningCurve> others) const {
  const std::optional<int64_t> step = LastStep(trial);
  if (!step.has_value() || *step < options_.start_step) return {};
  std::vector<double> averages;
  for (const LearningCurve& other : others) {
    if (!other.completed || other.trial_id == trial.trial_id) continue;
    if (LastStep(other).value_or(-1) < *step) continue;
    if (std::optional<double> average = RunningAverageUpTo(other, *step)) {
      averages.push_back(*average);
    }
  }
  const int needed = std::max(1, options_.min_trials);
  if (static_cast<int>(averages.size()) < needed) return {};

  const double best = *BestValueUpTo(trial, *step, options_.goal);
  const double median = Median(averages);
  StoppingDecision decision;
  decision.should_stop = IsBetterValue(median, best, options_.goal);
  decision.reason = absl::StrFormat(
      "median stopping: best value %g by step %d is %s than %g, the median of %d completed "
      "trials' running averages up to step %d",
      best, *step, decision.should_stop ? "worse" : "no worse", median, averages.size(), *step);
  return decision;
}

}  // namespace vernier::suggest
