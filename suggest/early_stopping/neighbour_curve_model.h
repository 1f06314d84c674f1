#ifndef VERNIER_SUGGEST_EARLY_STOPPING_NEIGHBOUR_CURVE_MODEL_H_
#define VERNIER_SUGGEST_EARLY_STOPPING_NEIGHBOUR_CURVE_MODEL_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "suggest/early_stopping/learning_curve_model.h"
#include "vernier/v1/study.pb.h"

namespace vernier::suggest {

class NeighbourFitCache;

// A learning-curve model that reads the future off the finished curves most
// like a running one, and assumes no family of curves.
//
// At the running trial's latest step t, every curve is described by two
// numbers: its best value up to t, and its recent progress, the mean of its
// values over the last quarter of the steps up to t less the same mean a
// half of t earlier (negative while a minimised metric still falls). The k
// finished curves nearest in these two (k = sqrt of their number, 3 to 10;
// both in units of the spread of the finished curves' best values at t)
// each say how much further their best value fell after t; the running
// trial's final value is predicted as its best so far less each of those
// improvements. A neighbour that improved more slowly than the trial does
// at t has its improvement scaled by the ratio of their progresses (at most
// kMaxPaceRatio); a trial
// faster than every finished curve was at t (beyond the noise) is unlike
// anything that finished and is granted at least its straight-line extrapolation, its recent pace
// kept up to the horizon, so a slow starter still climbing is never judged by fast learners that
// have flattened. A curve that rises again after its minimum keeps the minimum: the prediction is
// of the best value by the horizon. The spread of each prediction joins the reporting noise
// (measured on the finished curves' step-to-step differences) and how well
// the method foretold the finished curves nearest the trial, each from the
// others at the same step: noisy or erratic curves (an SGD that jumps, a
// late bloomer) widen it, regular ones narrow it.
//
// Counts (error rates on a fixed validation set: values on a lattice, as
// AreCountValues tells) are modelled on a log scale: every value as the
// logarithm of its distance to the best value a count can take (0 errors,
// or an accuracy of 1 or of 100%: the bound, when every finished value lies
// on its side), a distance of less than half a count taken as half a count. A count
// falls by factors (from hundreds of errors in the first epoch to tens), so
// a trial is like the finished curves at the same multiple of the best, an
// improvement is a factor, and the prediction's spread a factor of its
// distance to the bound: a trial ten times worse than the best is judged by
// how far the curves ten times worse went, not by the absolute falls of
// curves at its level, which are tens of counts early and one or two late.
// One report's noise on that scale is the larger of the finished curves'
// (median) and the measured noise at the predicted level. Other values
// (losses, measured with noise) are modelled as they are.
//
// The finished curves are survivors: the trials that looked good early.
// Trials stopped before the horizon (SetStopped) join them as neighbours
// where they ran past the step, each with what it improved up to its stop
// plus the most that its own nearest finished curves (at its last step)
// improved after that: censored observations, read optimistically, so that
// a trial unlike every survivor is judged by curves like it too.
class NeighbourCurveModel : public LearningCurveModel {
 public:
  static constexpr int kMinNeighbours = 3;
  static constexpr int kMaxNeighbours = 10;
  // The finished curves nearest the trial whose own prediction from the
  // others calibrates the spread.
  static constexpr int kCalibrationCurves = 10;
  // A neighbour slower than the trial has its improvement scaled by the
  // ratio of their paces, up to this: a neighbour several times slower is
  // not like the trial, and a trial faster than every finished curve has
  // its own extrapolation instead.
  static constexpr double kMaxPaceRatio = 2;

  explicit NeighbourCurveModel(v1::MetricSpec::Goal goal) : goal_(goal) {}

  void Fit(std::span<const LearningCurve* const> finished, int64_t horizon) override;
  // As Fit, taking the fit of the same curves from `cache` when it holds one
  // (and leaving this one there otherwise): the same model either way.
  void Fit(std::span<const LearningCurve* const> finished, int64_t horizon,
           NeighbourFitCache& cache);
  // The curves of trials stopped before the horizon, after Fit: each that
  // ran past a prediction's step is a neighbour there (see above).
  void SetStopped(std::span<const LearningCurve* const> stopped);
  std::optional<FinalValuePrediction> Predict(const LearningCurve& partial) const override;

  // The standard deviation of one report's noise seen in the last Fit.
  double Noise() const { return fitted_->noise; }
  // The step of the lattice the finished curves' values lie on (a count's
  // 1/n), 0 when none (LatticeStep), seen in the last Fit.
  double Lattice() const { return fitted_->lattice; }
  // Whether the last Fit models the values on a log scale (counts).
  bool LogScale() const { return fitted_->log_scale; }
  // `values` (in the metric's own units) in the model's: the logarithms of
  // their distances to the bound on a log scale, unchanged otherwise.
  StepValues InModelUnits(StepValues values) const;

  // What Fit learns from the finished curves; models fitted on the same
  // curves share it (NeighbourFitCache).
  struct Fitted;

 private:
  // A curve sorted by step with repeated steps averaged, in minimised form
  // (values of a maximised metric negated).
  struct Curve {
    std::vector<int64_t> steps;
    std::vector<double> values;
    std::vector<double> running_best;
    // prefix_sums[i] is the sum of values[0 .. i - 1].
    std::vector<double> prefix_sums;
    // The best value at a step <= the horizon (finished curves).
    double final_best = 0;
  };

 public:
  struct Fitted {
    int64_t horizon = 0;
    std::vector<Curve> finished;
    // The standard deviation of one report's noise.
    double noise = 0;
    // LatticeStep of the finished curves' values.
    double lattice = 0;
    // Counts, modelled as the logarithms of their distances to `bound` (in
    // minimised form), a distance under `floor` (half a count) taken as it.
    bool log_scale = false;
    double bound = 0;
    double floor = 0;
    // One report's noise in the model's units (`noise` unless log_scale).
    double model_noise = 0;
  };

 private:
  struct Features {
    double best = 0;
    double progress = 0;
    // The standard deviation of `progress` that the noise alone gives.
    double progress_noise = 0;
  };

  struct Neighbour {
    Features features;
    // How much its best value fell after the step.
    double improvement = 0;
    // The squared distance to the trial (only its order is used).
    double distance = 0;
  };

  // k for this many finished curves.
  static int NeighbourCount(int finished);
  // The improvements the k curves of `pool` nearest `trial` foretell for it
  // at `step` (scale: the unit of both features); leaves those k first in
  // `pool` and every distance to the trial set. `extrapolate`: grant a trial
  // faster than every curve of `pool` its straight-line extrapolation.
  std::vector<double> Improvements(const Features& trial, int64_t step,
                                   std::vector<Neighbour>& pool, int k, double scale,
                                   bool extrapolate) const;
  Curve Prepare(const LearningCurve& curve) const;
  // Sets `curve`'s running_best and prefix_sums from its values.
  static void Summarise(Curve& curve);
  // A prepared curve in the model's units (see Fitted::log_scale).
  static void ToModelUnits(Curve& curve, const Fitted& fitted);
  // The logarithm of a minimised value's distance to the bound.
  static double LogDistance(double value, const Fitted& fitted);
  // Whether `fitted`'s finished curves are counts with a bound, and which:
  // sets log_scale, bound, floor and model_noise (the curves left as they
  // are; ToModelUnits converts them).
  static void ChooseScale(Fitted& fitted, double least, double most);
  // The mean of the values at steps in (from, to] and their count.
  static std::pair<double, int> WindowMean(const Curve& curve, int64_t from, int64_t to);
  std::optional<Features> FeaturesAt(const Curve& curve, int64_t step) const;
  // The finished curves at `step` as neighbours (each with how much its
  // best value fell after it), their best values up to it appended to
  // `bests`.
  std::vector<Neighbour> FinishedAt(int64_t step, std::vector<double>& bests) const;
  // The unit of both features: the robust spread of `bests` (not empty), at
  // least the noise.
  double Scale(const std::vector<double>& bests) const;

  // The fit of `finished` at `horizon`.
  Fitted FitCurves(std::span<const LearningCurve* const> finished, int64_t horizon) const;

  v1::MetricSpec::Goal goal_;
  // Never null: empty until Fit.
  std::shared_ptr<const Fitted> fitted_ = std::make_shared<const Fitted>();
  // A stopped curve, with the improvement its nearest finished curves
  // foretell after its last step.
  struct Stopped {
    Curve curve;
    double after = 0;
  };
  std::vector<Stopped> stopped_;
};

}  // namespace vernier::suggest

#endif  // VERNIER_SUGGEST_EARLY_STOPPING_NEIGHBOUR_CURVE_MODEL_H_
