#include "suggest/early_stopping/learning_curve_policy.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "suggest/early_stopping/neighbour_curve_model.h"

namespace vernier::suggest {

bool LearningCurvePolicy::AreCounts(double noise, double lattice) const {
  return !options_.tie_margin.has_value() && AreCountValues(noise, lattice);
}

double LearningCurvePolicy::TieMargin(double noise, double lattice) const {
  if (options_.tie_margin.has_value()) return *options_.tie_margin * noise;
  return AreCounts(noise, lattice) ? 0 : kAutoTieMargin * noise;
}

double LearningCurvePolicy::StopBar(int64_t step, int64_t horizon) const {
  if (horizon <= 0 || step >= horizon) return 0;
  const double line = 2 * options_.stop_probability * static_cast<double>(horizon - step) /
                      static_cast<double>(horizon);
  const double ramp_end = options_.bar_ramp_fraction * static_cast<double>(horizon);
  if (ramp_end <= 0 || static_cast<double>(step) >= ramp_end) return line;
  return line * static_cast<double>(std::max<int64_t>(step, 0)) / ramp_end;
}

bool LearningCurvePolicy::InGuardWindow(int64_t step, int64_t horizon) const {
  return options_.guard_fraction > 0 &&
         static_cast<double>(step) <= options_.guard_fraction * static_cast<double>(horizon);
}

bool LearningCurvePolicy::IsGuarded(const LearningCurve& trial, int64_t step, int64_t horizon,
                                    std::span<const LearningCurve> others, double noise) const {
  if (!InGuardWindow(step, horizon)) return false;
  const double best = *BestValueUpTo(trial, step, options_.goal);
  // Half its steps rounded down: at step 3, its best by step 1 (none at
  // step 1, so a trial's first report counts as improving).
  const std::optional<double> earlier = BestValueUpTo(trial, step / 2, options_.goal);
  // Better by more than one report's noise: a trial on a noisy plateau is
  // not improving.
  const double sign = options_.goal == v1::MetricSpec::MINIMIZE ? 1 : -1;
  if (earlier.has_value() && !IsBetterValue(best + sign * noise, *earlier, options_.goal)) {
    return false;
  }
  int reached = 0;
  int ahead = 0;
  for (const LearningCurve& other : others) {
    if (other.trial_id == trial.trial_id) continue;
    const CurveReach reach = ReachUpTo(other, step, options_.goal);
    if (!reach.last_step.has_value() || *reach.last_step < step) continue;
    ++reached;
    if (IsBetterValue(*reach.best, best, options_.goal)) ++ahead;
  }
  return reached > 0 && ahead < options_.guard_quantile * reached;
}

StoppingDecision LearningCurvePolicy::Decide(const LearningCurve& trial,
                                             std::span<const LearningCurve> others) const {
  const std::optional<int64_t> step = LastStep(trial);
  if (!step.has_value() || *step < options_.start_step) return {};
  // One pass over the others: the best value any reported, and the
  // completed curves with their last steps (the horizon is the longest of
  // them unless max_step sets it).
  int64_t longest = 0;
  std::vector<std::pair<const LearningCurve*, int64_t>> completed;
  std::optional<double> target;
  for (const LearningCurve& other : others) {
    if (other.trial_id == trial.trial_id) continue;
    const CurveReach reach = ReachUpTo(other, std::numeric_limits<int64_t>::max(), options_.goal);
    if (!reach.last_step.has_value()) continue;
    if (other.completed) {
      completed.emplace_back(&other, *reach.last_step);
      longest = std::max(longest, *reach.last_step);
    }
    if (!target.has_value() || IsBetterValue(*reach.best, *target, options_.goal)) {
      target = reach.best;
    }
  }
  const int64_t horizon = options_.max_step > 0 ? options_.max_step : longest;
  if (horizon <= 0 || *step >= horizon) return {};
  std::vector<const LearningCurve*> finished;
  for (const auto& [curve, last] : completed) {
    if (last >= horizon) finished.push_back(curve);
  }
  if (static_cast<int>(finished.size()) < std::max(1, options_.min_trials)) return {};

  const double best = *BestValueUpTo(trial, *step, options_.goal);
  if (!IsBetterValue(*target, best, options_.goal)) {
    return {.should_stop = false,
            .reason = absl::StrFormat("learning curve: best value %g by step %d is the study's "
                                      "best so far",
                                      best, *step)};
  }
  NeighbourCurveModel model(options_.goal);
  if (fits_ != nullptr) {
    model.Fit(finished, horizon, *fits_);
  } else {
    model.Fit(finished, horizon);
  }
  if (IsGuarded(trial, *step, horizon, others, model.Noise())) {
    return {.should_stop = false,
            .reason = absl::StrFormat(
                "learning curve: best value %g by step %d, still improving and within the best "
                "%.0f%% of the trials at this step; none is stopped before step %g while so",
                best, *step, 100 * options_.guard_quantile,
                options_.guard_fraction * static_cast<double>(horizon))};
  }
  // The trials stopped before the horizon that ran past this step, the
  // latest kMaxStoppedNeighbours of them (a decision's cost stays bounded in
  // a study of thousands).
  std::vector<const LearningCurve*> stopped;
  for (const auto& [curve, last] : completed) {
    if (last < horizon && last > *step) stopped.push_back(curve);
  }
  if (static_cast<int>(stopped.size()) > kMaxStoppedNeighbours) {
    std::nth_element(
        stopped.begin(), stopped.begin() + kMaxStoppedNeighbours, stopped.end(),
        [](const LearningCurve* a, const LearningCurve* b) { return a->trial_id > b->trial_id; });
    stopped.resize(kMaxStoppedNeighbours);
  }
  model.SetStopped(stopped);
  std::optional<FinalValuePrediction> prediction = model.Predict(trial);
  if (!prediction.has_value()) return {};
  // In the guard's window the trial's own swings widen the spread: an
  // erratic early curve (SGD at a high learning rate) is judged by what it
  // may still do, not by steadier neighbours alone.
  const StepValues own = ValuesByStep(trial);
  double roughness = 0;
  if (InGuardWindow(*step, horizon)) {
    roughness =
        model.LogScale() ? Roughness(model.InModelUnits(own), *step) : Roughness(own, *step);
  }
  prediction->stddev = std::sqrt(prediction->stddev * prediction->stddev + roughness * roughness);
  // Ending within the tie margin of the best is a tie, not a win.
  const double margin = TieMargin(model.Noise(), model.Lattice());
  const double bar = *target + (options_.goal == v1::MetricSpec::MINIMIZE ? -1 : 1) * margin;
  const double modelled = prediction->ProbabilityBetterThan(bar, options_.goal);
  // The trial's final value is the best of its reports: a noisy one may
  // still beat the bar by luck in one of the reports left (counted at its
  // cadence so far), each drawn around its last value with its own noise.
  const double cadence = own.steps.size() > 1
                             ? static_cast<double>(own.steps.back() - own.steps.front()) /
                                   static_cast<double>(own.steps.size() - 1)
                             : 1;
  const double noise = ReportNoise(own, *step);
  const double reports_left = static_cast<double>(horizon - *step) / std::max(1.0, cadence);
  const double lucky_noise =
      ChanceOfALuckyReport(own.values.back(), noise, bar, reports_left, options_.goal);
  // A run that spikes now and then may dip as far as it jumps, however calm
  // its last stretch: its own large swings count as luck too.
  const LuckySwings swings = ChanceOfALuckySwing(own, *step, bar, reports_left, options_.goal);
  const double lucky = std::max(lucky_noise, swings.chance);
  const double chance = std::max(modelled, lucky);
  double mean = 0;
  for (double value : prediction->means) mean += value;
  mean /= static_cast<double>(prediction->means.size());
  const double bar_chance = StopBar(*step, horizon);
  StoppingDecision decision;
  decision.should_stop = chance < bar_chance;
  decision.reason = absl::StrFormat(
      "learning curve: best value %g by step %d; predicted best by step %d %g %s (%s%s); a "
      "%.1f%% chance of beating %g, the best so far%s%s, where under %.2g%% stops at this step",
      best, *step, horizon, mean,
      prediction->log_scale ? absl::StrFormat("within a factor of %.3g of its distance to %g",
                                              std::exp(prediction->stddev), prediction->bound)
                            : absl::StrFormat("+- %g", prediction->stddev),
      prediction->basis,
      roughness > 0 ? absl::StrFormat("; its own swings, %g a step, widen it", roughness) : "",
      100 * chance, *target,
      margin > 0 ? absl::StrFormat(", by more than %g (%g times a report's noise, %g)", margin,
                                   margin / model.Noise(), model.Noise())
      : AreCounts(model.Noise(), model.Lattice())
          ? absl::StrFormat(" by any amount (its values are counts, in steps of %g)",
                            model.Lattice())
          : "",
      lucky <= modelled ? ""
      : swings.chance > lucky_noise
          ? absl::StrFormat(" by luck: %d of its last %d changes were as large as the gap from "
                            "its last value %g, over its %.0f reports left",
                            swings.large, swings.changes, own.values.back(), reports_left)
          : absl::StrFormat(" by luck: its own noise, %g a report, around its last value %g, "
                            "over its %.0f reports left",
                            noise, own.values.back(), reports_left),
      100 * bar_chance);
  return decision;
}

}  // namespace vernier::suggest
