#ifndef VERNIER_SUGGEST_EARLY_STOPPING_LEARNING_CURVE_MODEL_H_
#define VERNIER_SUGGEST_EARLY_STOPPING_LEARNING_CURVE_MODEL_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "suggest/early_stopping/learning_curve.h"
#include "vernier/v1/study.pb.h"

namespace vernier::suggest {

// A running trial's predicted final value: the best value its curve reaches
// by the horizon (the checkpoint a user keeps, so a curve that rises again
// after its minimum keeps the minimum), in the metric's own units, as an
// equally weighted mixture of normal distributions with one spread.
struct FinalValuePrediction {
  std::vector<double> means;
  // 0: the means alone (no noise was seen).
  double stddev = 0;
  // On a log scale, the value's distance to `bound` (the best value it can
  // take: 0 for an error count, 1 or 100 for an accuracy) is lognormal: the
  // logarithm of the distance is normal around the logarithm of each mean's
  // with `stddev`, so the spread is a factor.
  bool log_scale = false;
  double bound = 0;
  // What the prediction rests on, in words.
  std::string basis;

  // The chance that the final value is strictly better than `target`.
  double ProbabilityBetterThan(double target, v1::MetricSpec::Goal goal) const;
};

// Predicts a running trial's final value from its partial curve and the
// curves of finished trials. Pure: no I/O, no clock, no randomness.
class LearningCurveModel {
 public:
  virtual ~LearningCurveModel() = default;
  // Fits on finished curves: each ran to `horizon` (its last step is at or
  // past it). Replaces what an earlier Fit learnt.
  virtual void Fit(std::span<const LearningCurve* const> finished, int64_t horizon) = 0;
  // The prediction at the partial curve's last step; nullopt where the model
  // cannot tell (too few points yet, or nothing fitted).
  virtual std::optional<FinalValuePrediction> Predict(const LearningCurve& partial) const = 0;
};

}  // namespace vernier::suggest

#endif  // VERNIER_SUGGEST_EARLY_STOPPING_LEARNING_CURVE_MODEL_H_
