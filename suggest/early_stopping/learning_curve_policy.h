#ifndef VERNIER_SUGGEST_EARLY_STOPPING_LEARNING_CURVE_POLICY_H_
#define VERNIER_SUGGEST_EARLY_STOPPING_LEARNING_CURVE_POLICY_H_

#include <cstdint>
#include <optional>
#include <span>

#include "suggest/early_stopping/early_stopping_policy.h"
#include "suggest/early_stopping/neighbour_fit_cache.h"
#include "vernier/v1/study.pb.h"

namespace vernier::suggest {

struct LearningCurvePolicyOptions {
  v1::MetricSpec::Goal goal = v1::MetricSpec::MAXIMIZE;
  // Finished trials (trained to the horizon) needed before any stop; values
  // below 1 count as 1.
  int min_trials = 1;
  // No trial is stopped before it has reported this step.
  int64_t start_step = 0;
  // The horizon: the trials' last step. 0: the last step of the longest
  // completed curve.
  int64_t max_step = 0;
  // A trial stops when its chance of ending better than the best value any
  // other trial has reported, by more than tie_margin report noises, is
  // below this at the halfway step. The bar is proportional to the steps a stop
  // saves: twice this at the first step, none at the horizon.
  double stop_probability = 0.05;
  // Over the first `bar_ramp_fraction` of the horizon the bar rises from 0 to
  // that line, in proportion to the step: a trial's first few reports say
  // little of where it goes, and a slow starter judged by them is the
  // winner most often thrown away. 0 turns the ramp off.
  double bar_ramp_fraction = 0.1;
  // Early on, the model is not trusted to stop a promising trial: up to
  // this fraction of the horizon, a trial still improving (its best so far
  // better than at half its steps, rounded down, by more than one report's
  // noise) and ranked within the best
  // `guard_quantile` of the trials that reached its step (by their best
  // values up to it) is not stopped, and every trial's own roughness
  // (Roughness) joins the spread of its prediction. 0 turns both off.
  double guard_fraction = 0.25;
  double guard_quantile = 0.6;
  // Ending better than the best report by at most this many of one report's
  // noise is a tie, not a win (EarlyStoppingSpec::tie_margin). 0: any amount
  // better is better. Unset: chosen from the finished curves (TieMargin):
  // kAutoTieMargin for a metric whose values vary continuously (a loss,
  // measured with noise), 0 for a count (an error rate on a fixed validation
  // set), whose smallest win, one step of its values, is a win the user keeps.
  std::optional<double> tie_margin = std::nullopt;
};

// Stops a trial when a learning-curve model (NeighbourCurveModel, fitted on
// the trials that trained to the horizon) gives it too small a chance of
// ending better than the best value reported by any other trial (by more
// than tie_margin report noises: for a metric measured with noise, ending
// within the noise of the best is a tie, not worth the steps; by default any
// amount better is better). Too small is a bar proportional to
// the steps left: the risk a stop takes is paid for by the steps it saves,
// so a trial is judged more boldly early, where a stop saves most of its
// cost, and hardly at all near the horizon, where it saves little
// (StopBar); only over the first tenth of the horizon does the bar rise
// from 0 to that line, since a trial's first reports alone say little of
// where it goes (bar_ramp_fraction). A trial whose best
// so far is already the best is never stopped, nor one the model cannot
// predict yet (a too short curve), nor, in the first quarter of the
// horizon, one still improving and within the best 60% of the trials at
// its step (IsGuarded): a few finished trials are all the model has then,
// and a slow starter that ends first is often a lucky one among many
// look-alikes that no model can tell apart by then. In that first quarter a
// trial's own swings (Roughness: how far its curve travelled beyond its net
// change, per step) also join the prediction's spread as one more standard
// deviation: a curve that jumps back and forth early (SGD at a high learning
// rate, before it settles) may still land far below where its steadier
// neighbours went, and a curve that moves one way is judged as before. The
// model predicts where a curve's trend goes; a noisy trial may also end
// better by luck, since its final value is the best of its reports: its
// chance is at least that of one of its reports left (at its cadence so
// far) beating the bar, each drawn around its last value with its own
// report noise (ReportNoise, ChanceOfALuckyReport), or, for a run that
// spikes now and then, reaching it by a swing as large as its own large
// changes (ChanceOfALuckySwing): a median-based noise does not see those in
// a calm stretch, and an unstable run may dip as far as it jumps. The
// trials stopped
// before the horizon are the model's neighbours too
// (NeighbourCurveModel::SetStopped), not only the survivors.
class LearningCurvePolicy : public EarlyStoppingPolicy {
 public:
  // The stopped trials the model takes as neighbours, at most (the latest).
  static constexpr int kMaxStoppedNeighbours = 250;
  // The tie margin, in report noises, when the options leave it unset and
  // the values are not counts.
  static constexpr double kAutoTieMargin = 1;

  // `fits`, when given (it must outlive the policy), keeps the model's fit
  // of the finished curves between decisions; the decisions are the same.
  explicit LearningCurvePolicy(LearningCurvePolicyOptions options,
                               NeighbourFitCache* fits = nullptr)
      : options_(options), fits_(fits) {}

  StoppingDecision Decide(const LearningCurve& trial,
                          std::span<const LearningCurve> others) const override;

  // The chance of a win under which a trial at `step` stops:
  // 2 * stop_probability * (horizon - step) / horizon, times
  // step / (bar_ramp_fraction * horizon) while that is under 1.
  double StopBar(int64_t step, int64_t horizon) const;
  // How much better than the best report a trial must be able to end to be
  // kept, given one report's `noise` and the `lattice` the finished curves'
  // values lie on (LatticeStep; 0: none): tie_margin noises when set;
  // unset, none for counts (AreCountValues: a lattice step of at least
  // kCountLattice noises) and kAutoTieMargin noises otherwise.
  double TieMargin(double noise, double lattice) const;
  // Whether TieMargin(noise, lattice) takes the values for counts.
  bool AreCounts(double noise, double lattice) const;
  // Whether `step` of `horizon` is within the first guard_fraction of it.
  bool InGuardWindow(int64_t step, int64_t horizon) const;
  // Whether the early guard keeps `trial` (at `step` of `horizon`) running;
  // `noise` is one report's (NeighbourCurveModel::Noise), which the trial's
  // improvement must exceed.
  bool IsGuarded(const LearningCurve& trial, int64_t step, int64_t horizon,
                 std::span<const LearningCurve> others, double noise) const;

 private:
  LearningCurvePolicyOptions options_;
  NeighbourFitCache* fits_;
};

}  // namespace vernier::suggest

#endif  // VERNIER_SUGGEST_EARLY_STOPPING_LEARNING_CURVE_POLICY_H_
