#include "suggest/early_stopping/hyperband_policy.h"

#include <cmath>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/suggest/learning_curves.h"

namespace vernier::suggest {
namespace {

using ::testing::HasSubstr;
using namespace vernier::suggest::testing;  // NOLINT: curve builders.

HyperbandPolicy HyperbandOf(double reduction_factor, int64_t grace_period, int64_t max_step) {
  return HyperbandPolicy(AshaOptions{.goal = v1::MetricSpec::MAXIMIZE,
                                     .reduction_factor = reduction_factor,
                                     .grace_period = grace_period,
                                     .max_step = max_step,
                                     .min_trials = 1,
                                     .start_step = 0});
}

// The first trial id from `from` on that lands in `bracket`.
int64_t IdIn(const HyperbandPolicy& policy, int bracket, int64_t from = 1) {
  for (int64_t id = from;; ++id) {
    if (policy.BracketOf(id) == bracket) return id;
  }
}

TEST(HyperbandPolicyTest, BracketsFollowHyperbandsSizes) {
  // Factor 3, rungs from step 1, trials of 100 steps: brackets of grace 1, 3,
  // 9 and 27 stop trials (27 * 3 <= 100), one more never does.
  const HyperbandPolicy policy = HyperbandOf(3, 1, 100);
  ASSERT_EQ(policy.BracketCount(), 5);
  const std::vector<double> sizes = {81.0 / 5, 27.0 / 4, 9.0 / 3, 3.0 / 2, 1};
  double total = 0;
  for (double size : sizes) total += size;
  for (int s = 0; s < 5; ++s) EXPECT_NEAR(policy.BracketWeights()[s], sizes[s] / total, 1e-12);
  // Without a last step: three stopping brackets and the one that never stops.
  EXPECT_EQ(HyperbandOf(2, 5, 0).BracketCount(),
            HyperbandPolicy::kStoppingBracketsWithoutMaxStep + 1);
  // A first rung that leaves no room before the last step: only the bracket
  // that never stops.
  EXPECT_EQ(HyperbandOf(3, 50, 100).BracketCount(), 1);
}

TEST(HyperbandPolicyTest, TrialsSpreadOverBracketsAsWeighted) {
  const HyperbandPolicy policy = HyperbandOf(3, 1, 100);
  std::vector<int> counts(policy.BracketCount(), 0);
  constexpr int kTrials = 20000;
  for (int64_t id = 1; id <= kTrials; ++id) ++counts[policy.BracketOf(id)];
  for (int s = 0; s < policy.BracketCount(); ++s) {
    EXPECT_NEAR(counts[s] / static_cast<double>(kTrials), policy.BracketWeights()[s], 0.01) << s;
  }
  // A pure function of the id: every server and restart agrees.
  EXPECT_EQ(policy.BracketOf(12345), HyperbandOf(3, 1, 100).BracketOf(12345));
}

TEST(HyperbandPolicyTest, TheLastBracketNeverStops) {
  const HyperbandPolicy policy = HyperbandOf(3, 1, 100);
  const int64_t id = IdIn(policy, policy.BracketCount() - 1);
  std::vector<LearningCurve> others;
  for (int64_t other = 1; other <= 40; ++other) {
    if (other != id) others.push_back(Completed(other, {0.9, 0.9, 0.9, 0.9}));
  }
  const StoppingDecision decision = policy.Decide(Running(id, {0.1, 0.1, 0.1, 0.1}), others);
  EXPECT_FALSE(decision.should_stop);
  EXPECT_THAT(decision.reason, HasSubstr("bracket 5 of 5, which never stops a trial"));
}

TEST(HyperbandPolicyTest, ATrialIsJudgedWithinItsBracketOnly) {
  const HyperbandPolicy policy = HyperbandOf(3, 1, 100);
  const int64_t trial = IdIn(policy, 0);
  const int64_t peer = IdIn(policy, 0, trial + 1);
  // Many worse trials of other brackets at the rung at step 1 do not count.
  std::vector<LearningCurve> others = {Running(peer, {0.9})};
  for (int64_t id = 1; others.size() < 30; ++id) {
    if (policy.BracketOf(id) != 0) others.push_back(Running(id, {0.1}));
  }
  const StoppingDecision decision = policy.Decide(Running(trial, {0.5}), others);
  EXPECT_TRUE(decision.should_stop);
  EXPECT_THAT(decision.reason, HasSubstr("Hyperband bracket 1 of 5 (rungs from step 1), ASHA: at "
                                         "the rung at step 1, value 0.5 ranks 2 of the 2 trials"));
  // Plain ASHA over the same trials keeps it.
  AshaPolicy asha(AshaOptions{.goal = v1::MetricSpec::MAXIMIZE, .reduction_factor = 3});
  EXPECT_FALSE(asha.Decide(Running(trial, {0.5}), others).should_stop);
}

TEST(HyperbandPolicyTest, LaterBracketsWaitForTheirLaterRungs) {
  const HyperbandPolicy policy = HyperbandOf(3, 1, 100);
  // Bracket 2's first rung is at step 3: at step 2 it has nothing to judge.
  const int64_t trial = IdIn(policy, 1);
  const int64_t peer = IdIn(policy, 1, trial + 1);
  const std::vector<LearningCurve> others = {Running(peer, {0.9, 0.9, 0.9})};
  EXPECT_EQ(policy.Decide(Running(trial, {0.1, 0.1}), others).reason, "");
  EXPECT_TRUE(policy.Decide(Running(trial, {0.1, 0.1, 0.1}), others).should_stop);
}

}  // namespace
}  // namespace vernier::suggest
