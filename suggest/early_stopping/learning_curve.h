#ifndef VERNIER_SUGGEST_EARLY_STOPPING_LEARNING_CURVE_H_
#define VERNIER_SUGGEST_EARLY_STOPPING_LEARNING_CURVE_H_

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "vernier/v1/study.pb.h"

namespace vernier::suggest {

// One reported value of the objective, as reported (the goal says which way
// is better).
struct CurvePoint {
  int64_t step = 0;
  double value = 0;
};

// One trial's objective curve. Points may come in any order and may repeat a
// step; nothing computed from a curve depends on the order.
struct LearningCurve {
  int64_t trial_id = 0;
  std::vector<CurvePoint> points;
  // The trial has ended with its curve (SUCCEEDED or STOPPED_EARLY); false
  // while it runs.
  bool completed = false;
};

// True when `a` is strictly better than `b` under `goal` (MINIMIZE: smaller;
// anything else: larger).
bool IsBetterValue(double a, double b, v1::MetricSpec::Goal goal);

// The largest step of the curve; nullopt when it is empty.
std::optional<int64_t> LastStep(const LearningCurve& curve);

// The best value reported at a step <= `step`; nullopt when there is none.
std::optional<double> BestValueUpTo(const LearningCurve& curve, int64_t step,
                                    v1::MetricSpec::Goal goal);

// LastStep and BestValueUpTo(curve, step, goal) in one pass over the
// points, for a decision that reads both of every other trial.
struct CurveReach {
  std::optional<int64_t> last_step;
  std::optional<double> best;
};
CurveReach ReachUpTo(const LearningCurve& curve, int64_t step, v1::MetricSpec::Goal goal);

// The mean of the values reported at steps <= `step`; nullopt when there is
// none.
std::optional<double> RunningAverageUpTo(const LearningCurve& curve, int64_t step);

// A curve's reports in step order, one value a step: the mean of the
// reports at it.
struct StepValues {
  std::vector<int64_t> steps;
  std::vector<double> values;
};
StepValues ValuesByStep(const LearningCurve& curve);

// How far a curve's values (ValuesByStep) travelled up to `step` beyond
// their net change, per step: the sum of |v[i] - v[i - 1]| over the values
// in step order less |v[last] - v[first]|, over the number of differences.
// 0 for a curve that moves one way, however it bends, and for fewer than
// three steps; about the size of its swings for one that jumps back and
// forth (SGD at a high learning rate).
double Roughness(const StepValues& by_step, int64_t step);

// The noise of one report in a run of values in step order: the median of
// |v[i] - v[i - 1]|, scaled to a normal's standard deviation (divided by
// 0.6745 * sqrt(2)). The noise dominates the steps wherever the trend is
// slow; the median ignores rare spikes and a steep start. 0 for fewer
// than two values.
double StepNoise(std::span<const double> values);

// The noise of one of a curve's own reports up to `step`, from its values
// (ValuesByStep): StepNoise over the last half of them (at least three
// values). 0 for fewer than four steps.
double ReportNoise(const StepValues& by_step, int64_t step);

// The chance that at least one of `reports` more reports beats `bar` under
// `goal`, each drawn independently from a normal around `last` with
// standard deviation `noise`: 1 - (1 - p)^reports, p the chance of one.
// 0 when `noise` or `reports` is not positive.
double ChanceOfALuckyReport(double last, double noise, double bar, double reports,
                            v1::MetricSpec::Goal goal);

// A curve's own large swings as a chance of a lucky report: a metric
// whose reports spike now and then (an unstable run, at a high learning
// rate) may dip as far as it jumps, which a median-based noise
// (ReportNoise) does not see in a calm stretch. Over the last half of the
// step-to-step changes up to `step` (those into the values of the curve's
// second half), `large` counts the ones at least sqrt(2) times the gap from
// the last value to `bar` (as large as a report that far from a
// neighbour at the last value makes); a report reaches the bar with half
// their share (a swing as likely either way), and `chance` is that of at
// least one of `reports` more doing so. 0 for fewer than four steps, or a
// last value already at or past the bar.
struct LuckySwings {
  int large = 0;
  int changes = 0;
  double chance = 0;
};
LuckySwings ChanceOfALuckySwing(const StepValues& by_step, int64_t step, double bar, double reports,
                                v1::MetricSpec::Goal goal);

// The median (the mean of the two middle values for an even count); the
// values must not be empty.
double Median(std::vector<double> values);

// The step of the lattice that `values` lie on, as the values of a count
// do (an error rate on a fixed validation set moves by 1/n), or 0 when
// they lie on none that can be told. Values within 1e-9 of each other
// (relative) are one value. Of the gaps between consecutive distinct
// values, the step is the smallest one on which the values lie, among the
// kLatticeCandidates smallest (a value averaged from two reports at a step
// may fall between two counts), each refined as the mean step of the gaps
// of at most kLatticeRefineSteps steps; the values lie on it when at least
// kLatticeShare of all gaps are within kLatticeTolerance of a whole number
// of steps, and the step is the coarsest such (values on a lattice lie on
// every finer one). 0 for fewer than kLatticeMinGaps gaps. Of more than
// kLatticeMaxValues values, every k-th is read (k the least that keeps at
// most that many). Values rounded when written (to six decimals, say) lie
// on the rounding's lattice: the caller compares the step with what it
// cares about (a report's noise).
inline constexpr int kLatticeMinGaps = 8;
inline constexpr int kLatticeMaxValues = 1024;
inline constexpr int kLatticeCandidates = 4;
inline constexpr int kLatticeRefineSteps = 3;
inline constexpr double kLatticeTolerance = 0.1;
inline constexpr double kLatticeShare = 0.95;
double LatticeStep(std::vector<double> values);

// Values on a lattice whose step is at least this share of a report's noise
// are counts: the noise spans a few steps of them at most.
inline constexpr double kCountLattice = 0.125;
// Whether values on a lattice of step `lattice` (LatticeStep; 0: none),
// with one report's `noise`, are counts.
bool AreCountValues(double noise, double lattice);

}  // namespace vernier::suggest

#endif  // VERNIER_SUGGEST_EARLY_STOPPING_LEARNING_CURVE_H_
