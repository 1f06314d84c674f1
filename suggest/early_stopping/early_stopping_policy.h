#ifndef VERNIER_SUGGEST_EARLY_STOPPING_EARLY_STOPPING_POLICY_H_
#define VERNIER_SUGGEST_EARLY_STOPPING_EARLY_STOPPING_POLICY_H_

#include <span>
#include <string>

#include "suggest/early_stopping/learning_curve.h"

namespace vernier::suggest {

struct StoppingDecision {
  bool should_stop = false;
  // What the decision rests on, in words, e.g. "best 0.61 at step 12 is worse
  // than 0.70, the median of 5 completed trials' running averages at step
  // 12"; empty when the policy had nothing to compare yet.
  std::string reason;
};

// Decides whether a running trial should stop, from its curve and the other
// trials' curves. Pure: no I/O, no clock; the same curves give the same
// decision. Decisions are made again whenever the trial reports, so a policy
// keeps no state between calls that could change one (a cache of what it
// computed from curves that did not change may be handed to it:
// LearningCurvePolicy's NeighbourFitCache).
class EarlyStoppingPolicy {
 public:
  virtual ~EarlyStoppingPolicy() = default;
  // `others` holds every other trial of the study that has a curve, running
  // or ended; an entry with `trial`'s id is ignored.
  virtual StoppingDecision Decide(const LearningCurve& trial,
                                  std::span<const LearningCurve> others) const = 0;
};

}  // namespace vernier::suggest

#endif  // VERNIER_SUGGEST_EARLY_STOPPING_EARLY_STOPPING_POLICY_H_
