#ifndef VERNIER_SUGGEST_EARLY_STOPPING_EARLY_STOPPING_POLICY_FACTORY_H_
#define VERNIER_SUGGEST_EARLY_STOPPING_EARLY_STOPPING_POLICY_FACTORY_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "suggest/early_stopping/early_stopping_policy.h"
#include "suggest/early_stopping/neighbour_fit_cache.h"
#include "vernier/v1/study.pb.h"

namespace vernier::suggest {

// What `enableTrialEarlyStopping: true` alone (POLICY_UNSPECIFIED) runs.
// The learning-curve policy: the only one that kept the regret of no
// stopping on every curve family of docs/benchmarks.md, those that overfit
// and cross included.
inline constexpr v1::EarlyStoppingSpec::Policy kDefaultEarlyStoppingPolicy =
    v1::EarlyStoppingSpec::LEARNING_CURVE;
// The defaults of the EarlyStoppingSpec fields left at 0.
inline constexpr int kDefaultMedianMinTrials = 3;
inline constexpr int kDefaultAshaMinTrials = 1;
inline constexpr int kDefaultLearningCurveMinTrials = 5;
// Keeping half at each rung did better than a third on both curve families
// of bench/early_stopping_bench.cc (docs/benchmarks.md).
inline constexpr double kDefaultReductionFactor = 2;
// The learning-curve policy's tie_margin, in report noises, at most: a
// larger one would stop every trial not already far ahead.
inline constexpr double kMaxTieMargin = 10;

// True for the policies that stand on rungs (ASHA and Hyperband), which
// alone use reduction_factor and grace_period.
bool UsesRungs(v1::EarlyStoppingSpec::Policy policy);

// The spec with its policy and every field left at 0 replaced by what runs.
v1::EarlyStoppingSpec EffectiveEarlyStopping(const v1::EarlyStoppingSpec& early_stopping);

// The policy of a study's spec, judging its first metric; nullptr when early
// stopping is off. INVALID_ARGUMENT for settings no policy can run with.
// `fits` (optional; it must outlive the policy) keeps the learning-curve
// policy's fits between decisions, as a server keeps one for every study.
absl::StatusOr<std::unique_ptr<EarlyStoppingPolicy>> MakeEarlyStoppingPolicy(
    const v1::StudySpec& spec, NeighbourFitCache* fits = nullptr);

// In words, e.g. "ASHA, reduction factor 2, rungs from step 5 for trials of
// per rung, from step 0)" or "off", for `studies describe`.
std::string DescribeEarlyStopping(const v1::EarlyStoppingSpec& early_stopping);

}  // namespace vernier::suggest

#endif  // VERNIER_SUGGEST_EARLY_STOPPING_EARLY_STOPPING_POLICY_FACTORY_H_
