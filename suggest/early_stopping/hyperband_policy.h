#ifndef VERNIER_SUGGEST_EARLY_STOPPING_HYPERBAND_POLICY_H_
#define VERNIER_SUGGEST_EARLY_STOPPING_HYPERBAND_POLICY_H_

#include <cstdint>
#include <span>
#include <vector>

#include "suggest/early_stopping/asha_policy.h"
#include "suggest/early_stopping/early_stopping_policy.h"
#include "vernier/v1/study.pb.h"

namespace vernier::suggest {

// Asynchronous Hyperband (Li et al., "A System for Massively Parallel
// Hyperparameter Tuning", MLSys 2020, section 3.3): several ASHA brackets,
// bracket s with its first rung at grace_period * reduction_factor^s, and one
// last bracket that never stops a trial. The options are ASHA's: the most
// aggressive bracket's, max_step also setting how many brackets stop trials
// (one for each grace period that leaves a rung before it, as ASHA's rungs
// do; kStoppingBracketsWithoutMaxStep without it). Each trial belongs to one bracket
// and is judged by that bracket's ASHA against the trials of the same
// bracket only. The bracket is a pure function of the trial id (a hash drawn
// against Hyperband's bracket sizes, n_s proportional to eta^a / (a + 1) for
// a bracket with a stopping rounds, so every bracket gets about the same
// training budget), so every server and every restart puts a trial in the
// same bracket with nothing stored.
class HyperbandPolicy : public EarlyStoppingPolicy {
 public:
  // Used when max_step is 0: brackets of grace period g, g*eta and g*eta^2,
  // and the one that never stops.
  static constexpr int kStoppingBracketsWithoutMaxStep = 3;

  explicit HyperbandPolicy(AshaOptions options);

  StoppingDecision Decide(const LearningCurve& trial,
                          std::span<const LearningCurve> others) const override;

  // The bracket of a trial: 0 .. BracketCount() - 1; the last never stops.
  int BracketOf(int64_t trial_id) const;
  int BracketCount() const { return static_cast<int>(weights_.size()); }
  // The share of trials each bracket gets, summing to 1.
  const std::vector<double>& BracketWeights() const { return weights_; }

 private:
  AshaOptions options_;
  // One ASHA per stopping bracket.
  std::vector<AshaPolicy> brackets_;
  std::vector<int64_t> grace_periods_;
  std::vector<double> weights_;
};

}  // namespace vernier::suggest

#endif  // VERNIER_SUGGEST_EARLY_STOPPING_HYPERBAND_POLICY_H_
