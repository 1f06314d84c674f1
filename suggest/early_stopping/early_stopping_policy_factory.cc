#include "suggest/early_stopping/early_stopping_policy_factory.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "suggest/early_stopping/asha_policy.h"
#include "suggest/early_stopping/hyperband_policy.h"
#include "suggest/early_stopping/learning_curve_policy.h"
#include "suggest/early_stopping/median_stopping_policy.h"

namespace vernier::suggest {

bool UsesRungs(v1::EarlyStoppingSpec::Policy policy) {
  return policy == v1::EarlyStoppingSpec::ASHA || policy == v1::EarlyStoppingSpec::HYPERBAND;
}

v1::EarlyStoppingSpec EffectiveEarlyStopping(const v1::EarlyStoppingSpec& early_stopping) {
  v1::EarlyStoppingSpec effective = early_stopping;
  if (effective.policy() == v1::EarlyStoppingSpec::POLICY_UNSPECIFIED) {
    effective.set_policy(kDefaultEarlyStoppingPolicy);
  }
  const bool rungs = UsesRungs(effective.policy());
  if (effective.min_trials() == 0) {
    effective.set_min_trials(rungs ? kDefaultAshaMinTrials
                             : effective.policy() == v1::EarlyStoppingSpec::LEARNING_CURVE
                                 ? kDefaultLearningCurveMinTrials
                                 : kDefaultMedianMinTrials);
  }
  if (rungs && effective.reduction_factor() == 0) {
    effective.set_reduction_factor(kDefaultReductionFactor);
  }
  if (rungs && effective.grace_period() == 0) {
    effective.set_grace_period(std::max<int64_t>(1, effective.start_step()));
  }
  return effective;
}

absl::StatusOr<std::unique_ptr<EarlyStoppingPolicy>> MakeEarlyStoppingPolicy(
    const v1::StudySpec& spec, NeighbourFitCache* fits) {
  if (!spec.early_stopping().enabled()) return nullptr;
  const v1::EarlyStoppingSpec settings = EffectiveEarlyStopping(spec.early_stopping());
  const v1::MetricSpec::Goal goal =
      spec.metrics().empty() ? v1::MetricSpec::MAXIMIZE : spec.metrics(0).goal();
  switch (settings.policy()) {
    case v1::EarlyStoppingSpec::MEDIAN_STOPPING:
      return std::make_unique<MedianStoppingPolicy>(MedianStoppingOptions{
          .goal = goal, .min_trials = settings.min_trials(), .start_step = settings.start_step()});
    case v1::EarlyStoppingSpec::ASHA:
    case v1::EarlyStoppingSpec::HYPERBAND:
      if (!(settings.reduction_factor() > 1) || !std::isfinite(settings.reduction_factor())) {
        return absl::InvalidArgumentError(absl::StrFormat(
            "%s's reduction factor must be a number greater than 1, got %g",
            v1::EarlyStoppingSpec::Policy_Name(settings.policy()), settings.reduction_factor()));
      }
      {
        const AshaOptions options{.goal = goal,
                                  .reduction_factor = settings.reduction_factor(),
                                  .grace_period = settings.grace_period(),
                                  .max_step = settings.max_step(),
                                  .min_trials = settings.min_trials(),
                                  .start_step = settings.start_step()};
        if (settings.policy() == v1::EarlyStoppingSpec::HYPERBAND) {
          return std::make_unique<HyperbandPolicy>(options);
        }
        return std::make_unique<AshaPolicy>(options);
      }
    case v1::EarlyStoppingSpec::LEARNING_CURVE:
      return std::make_unique<LearningCurvePolicy>(
          LearningCurvePolicyOptions{.goal = goal,
                                     .min_trials = settings.min_trials(),
                                     .start_step = settings.start_step(),
                                     .max_step = settings.max_step(),
                                     .tie_margin = settings.has_tie_margin()
                                                       ? std::optional(settings.tie_margin())
                                                       : std::nullopt},
          fits);
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("unknown early stopping policy ", static_cast<int>(settings.policy())));
  }
}

std::string DescribeEarlyStopping(const v1::EarlyStoppingSpec& early_stopping) {
  if (!early_stopping.enabled()) return "off";
  const v1::EarlyStoppingSpec settings = EffectiveEarlyStopping(early_stopping);
  std::string text = v1::EarlyStoppingSpec::Policy_Name(settings.policy());
  if (early_stopping.policy() == v1::EarlyStoppingSpec::POLICY_UNSPECIFIED) {
    absl::StrAppend(&text, " (default)");
  }
  if (UsesRungs(settings.policy())) {
    absl::StrAppend(&text, absl::StrFormat(", reduction factor %g, rungs from step %d",
                                           settings.reduction_factor(), settings.grace_period()));
    if (settings.max_step() > 0)
      absl::StrAppend(&text, " for trials of ", settings.max_step(), " steps");
    absl::StrAppend(&text, ", from step ", settings.start_step(), ", after ", settings.min_trials(),
                    " trials per rung");
    return text;
  }
  if (settings.policy() == v1::EarlyStoppingSpec::LEARNING_CURVE) {
    absl::StrAppend(&text, ", predicting the best value by step ");
    absl::StrAppend(&text, settings.max_step() > 0 ? absl::StrCat(settings.max_step())
                                                   : std::string("the longest curve's last"));
    absl::StrAppend(&text, ", from step ", settings.start_step(), ", after ", settings.min_trials(),
                    " trials trained to it");
    if (!settings.has_tie_margin()) {
      absl::StrAppend(&text, absl::StrFormat(
                                 ", ending within %g report noises of the best a tie unless the "
                                 "values are counts",
                                 LearningCurvePolicy::kAutoTieMargin));
    } else if (settings.tie_margin() > 0) {
      absl::StrAppend(&text, absl::StrFormat(", ending within %g report noises of the best a tie",
                                             settings.tie_margin()));
    } else {
      absl::StrAppend(&text, ", ending any amount better than the best a win");
    }
    absl::StrAppend(&text, "; counts judged by factors, on a log scale");
    return text;
  }
  absl::StrAppend(&text, ", from step ", settings.start_step(), ", after ", settings.min_trials(),
                  " completed trials");
  return text;
}

}  // namespace vernier::suggest
