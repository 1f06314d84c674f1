#include "suggest/early_stopping/asha_policy.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_format.h"

namespace vernier::suggest {

std::vector<int64_t> AshaPolicy::RungsUpTo(int64_t step) const {
  std::vector<int64_t> rungs;
  const double first = static_cast<double>(std::max<int64_t>(1, options_.grace_period));
  for (int k = 0;; ++k) {
    const double exact = first * std::pow(options_.reduction_factor, k);
    if (!(exact <= static_cast<double>(step))) break;  // Also ends a NaN or overflow.
    // Rounding may repeat a rung when the factor is close to 1; keep them apart.
    int64_t rung = std::llround(exact);
    if (!rungs.empty()) rung = std::max(rung, rungs.back() + 1);
    if (rung > step) break;
    if (options_.max_step > 0 && rung * options_.reduction_factor > options_.max_step) break;
    rungs.push_back(rung);
  }
  return rungs;
}

std::optional<double> AshaPolicy::ValueAtRung(const LearningCurve& curve, int64_t rung) const {
  std::optional<int64_t> reached;
  for (const CurvePoint& point : curve.points) {
    if (point.step >= rung && (!reached.has_value() || point.step < *reached)) {
      reached = point.step;
    }
  }
  if (!reached.has_value()) return std::nullopt;
  return BestValueUpTo(curve, *reached, options_.goal);
}

StoppingDecision AshaPolicy::Decide(const LearningCurve& trial,
                                    std::span<const LearningCurve> others) const {
  return DecideAmong(trial, others, [](int64_t) { return true; });
}

StoppingDecision AshaPolicy::DecideAmong(const LearningCurve& trial,
                                         std::span<const LearningCurve> others,
                                         const std::function<bool(int64_t)>& counts) const {
  const std::optional<int64_t> step = LastStep(trial);
  if (!step.has_value() || *step < options_.start_step) return {};
  const std::vector<int64_t> rungs = RungsUpTo(*step);
  if (rungs.empty()) return {};
  const int64_t rung = rungs.back();
  const double value = *ValueAtRung(trial, rung);

  int reached = 1;
  int better = 0;
  for (const LearningCurve& other : others) {
    if (other.trial_id == trial.trial_id || !counts(other.trial_id)) continue;
    const std::optional<double> other_value = ValueAtRung(other, rung);
    if (!other_value.has_value()) continue;
    ++reached;
    if (IsBetterValue(*other_value, value, options_.goal)) ++better;
  }
  if (reached < std::max(1, options_.min_trials)) return {};
  const int kept = static_cast<int>(std::ceil(reached / options_.reduction_factor - 1e-9));
  StoppingDecision decision;
  decision.should_stop = better >= kept;
  decision.reason = absl::StrFormat(
      "ASHA: at the rung at step %d, value %g ranks %d of the %d trials that reached it; the "
      "best %d (1/%g) continue",
      rung, value, better + 1, reached, kept, options_.reduction_factor);
  return decision;
}

}  // namespace vernier::suggest
