#ifndef VERNIER_SUGGEST_EARLY_STOPPING_MEDIAN_STOPPING_POLICY_H_
#define VERNIER_SUGGEST_EARLY_STOPPING_MEDIAN_STOPPING_POLICY_H_

#include <cstdint>
#include <span>

#include "suggest/early_stopping/early_stopping_policy.h"
#include "vernier/v1/study.pb.h"

namespace vernier::suggest {

struct MedianStoppingOptions {
  v1::MetricSpec::Goal goal = v1::MetricSpec::MAXIMIZE;
  // Completed trials needed at a step before a trial is stopped there;
  // values below 1 count as 1.
  int min_trials = 1;
  // No trial is stopped before it has reported this step.
  int64_t start_step = 0;
};

// The median stopping rule (Golovin et al., "Google Vizier", KDD 2017): a
// trial whose best value so far, at its latest step s, is strictly worse than
// the median of the completed trials' running averages up to s is stopped.
// A completed trial's running average up to s is the mean of its values at
// steps <= s; only completed trials that reached s count (a trial stopped
// before s has no average up to s, and counting its shorter one would make
// the rule ever gentler as stopped trials pile up).
class MedianStoppingPolicy : public EarlyStoppingPolicy {
 public:
  explicit MedianStoppingPolicy(MedianStoppingOptions options) : options_(options) {}

  StoppingDecision Decide(const LearningCurve& trial,
                          std::span<const LearningCurve> others) const override;

 private:
  MedianStoppingOptions options_;
};

}  // namespace vernier::suggest

#endif  // VERNIER_SUGGEST_EARLY_STOPPING_MEDIAN_STOPPING_POLICY_H_
