#include "suggest/early_stopping/learning_curve_policy.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/suggest/learning_curves.h"

namespace vernier::suggest {
namespace {

using ::testing::HasSubstr;
using namespace vernier::suggest::testing;  // NOLINT: curve builders.

// Accuracy rising from 0.5 towards `top` at rate `rate`.
std::function<double(int)> Rise(double top, double rate) {
  return [top, rate](int step) { return top - (top - 0.5) * std::exp(-rate * step); };
}

LearningCurvePolicy LearningCurveOf(int min_trials = 3, int64_t start_step = 0,
                                    int64_t max_step = 0,
                                    v1::MetricSpec::Goal goal = v1::MetricSpec::MAXIMIZE) {
  return LearningCurvePolicy(LearningCurvePolicyOptions{
      .goal = goal, .min_trials = min_trials, .start_step = start_step, .max_step = max_step});
}

// Five trials that finished 50 steps, ending at 0.70 to 0.90.
std::vector<LearningCurve> FiveFinished() {
  std::vector<LearningCurve> curves;
  for (int i = 0; i < 5; ++i)
    curves.push_back(FromFunction(i + 1, Rise(0.7 + 0.05 * i, 0.2), 50, true));
  return curves;
}

TEST(LearningCurvePolicyTest, StopsATrialThatCannotCatchTheBest) {
  const StoppingDecision decision =
      LearningCurveOf().Decide(FromFunction(9, Rise(0.6, 0.2), 15, false), FiveFinished());
  EXPECT_TRUE(decision.should_stop);
  EXPECT_THAT(decision.reason, HasSubstr("learning curve: best value"));
  // Smooth curves: their values vary continuously, so a tie margin of one
  // report's noise (about 0.0004 here) by default.
  EXPECT_THAT(decision.reason, HasSubstr("the best so far, by more than"));
  // At step 15 of 50 the bar is 2 * 5% * 35 / 50.
  EXPECT_THAT(decision.reason, HasSubstr("where under 7% stops at this step"));
  EXPECT_THAT(decision.reason, HasSubstr("finished trials most like it at step 15"));
}

TEST(LearningCurvePolicyTest, TheBarFallsWithTheStepsAStopWouldSave) {
  const LearningCurvePolicy policy = LearningCurveOf();
  // From the first tenth of the horizon on (step 5 of 50), a line from 10%
  // at step 0 to none at the horizon.
  EXPECT_DOUBLE_EQ(policy.StopBar(5, 50), 0.09);
  EXPECT_DOUBLE_EQ(policy.StopBar(10, 50), 0.08);
  EXPECT_DOUBLE_EQ(policy.StopBar(25, 50), 0.05);
  EXPECT_DOUBLE_EQ(policy.StopBar(45, 50), 0.01);
  EXPECT_DOUBLE_EQ(policy.StopBar(50, 50), 0);
  EXPECT_DOUBLE_EQ(policy.StopBar(60, 50), 0);
  EXPECT_DOUBLE_EQ(policy.StopBar(10, 0), 0);
}

TEST(LearningCurvePolicyTest, TheBarRisesOverTheFirstTenthOfTheHorizon) {
  const LearningCurvePolicy policy = LearningCurveOf();
  EXPECT_DOUBLE_EQ(policy.StopBar(0, 50), 0);
  EXPECT_DOUBLE_EQ(policy.StopBar(1, 50), 0.098 / 5);
  EXPECT_DOUBLE_EQ(policy.StopBar(4, 50), 0.092 * 4 / 5);
  EXPECT_DOUBLE_EQ(policy.StopBar(10, 100), 0.09);
  EXPECT_DOUBLE_EQ(policy.StopBar(-1, 50), 0);
  // Without the ramp, the line from the first step.
  LearningCurvePolicyOptions no_ramp{.goal = v1::MetricSpec::MAXIMIZE, .min_trials = 3};
  no_ramp.bar_ramp_fraction = 0;
  EXPECT_DOUBLE_EQ(LearningCurvePolicy(no_ramp).StopBar(0, 50), 0.10);
  EXPECT_DOUBLE_EQ(LearningCurvePolicy(no_ramp).StopBar(1, 50), 0.098);
}

TEST(LearningCurvePolicyTest, ATrialsFirstReportsAreJudgedByAHigherBar) {
  // The best finished trial's curve 0.05 lower: at step 2 of 50 behind
  // three of the five finished trials (so not guarded), its chance of
  // catching the best is 7.1%. The line alone (9.6% at step 2) stops it;
  // the ramp's bar, two fifths of that, keeps it.
  const std::function<double(int)> rise = Rise(0.9, 0.2);
  const LearningCurve lower = FromFunction(
      9, [rise](int step) { return rise(step) - 0.05; }, 2, false);
  LearningCurvePolicyOptions no_ramp{.goal = v1::MetricSpec::MAXIMIZE, .min_trials = 3};
  no_ramp.bar_ramp_fraction = 0;
  const StoppingDecision line = LearningCurvePolicy(no_ramp).Decide(lower, FiveFinished());
  EXPECT_TRUE(line.should_stop) << line.reason;
  EXPECT_THAT(line.reason, HasSubstr("a 7.1% chance"));
  const StoppingDecision ramp = LearningCurveOf().Decide(lower, FiveFinished());
  EXPECT_FALSE(ramp.should_stop) << ramp.reason;
  EXPECT_THAT(ramp.reason, HasSubstr("a 7.1% chance"));
  EXPECT_THAT(ramp.reason, HasSubstr("where under 3.8% stops at this step"));
}

TEST(LearningCurvePolicyTest, KeepsATrialOnCourseToWin) {
  // Like the best finished trial, a little higher: it may well end best.
  EXPECT_FALSE(LearningCurveOf()
                   .Decide(FromFunction(9, Rise(0.92, 0.2), 15, false), FiveFinished())
                   .should_stop);
}

TEST(LearningCurvePolicyTest, KeepsASlowStarterStillClimbing) {
  // Below every finished trial at step 10, but still rising steeply where
  // they had flattened: it ends at 0.95.
  std::vector<LearningCurve> fast;
  for (int i = 0; i < 5; ++i)
    fast.push_back(FromFunction(i + 1, Rise(0.7 + 0.05 * i, 1.0), 50, true));
  const StoppingDecision decision =
      LearningCurveOf().Decide(FromFunction(9, Rise(0.95, 0.04), 10, false), fast);
  EXPECT_FALSE(decision.should_stop) << decision.reason;
}

TEST(LearningCurvePolicyTest, NeverStopsTheBestSoFar) {
  std::vector<LearningCurve> others = FiveFinished();
  const StoppingDecision decision =
      LearningCurveOf().Decide(FromFunction(
                                   9, [](int) { return 0.95; }, 10, false),
                               others);
  EXPECT_FALSE(decision.should_stop);
  EXPECT_THAT(decision.reason, HasSubstr("is the study's best so far"));
}

TEST(LearningCurvePolicyTest, WaitsForMinTrialsFinishedToTheHorizon) {
  std::vector<LearningCurve> others = FiveFinished();
  const LearningCurve poor = FromFunction(9, Rise(0.6, 0.2), 15, false);
  EXPECT_EQ(LearningCurveOf(6).Decide(poor, others).reason, "");
  // A trial stopped early is completed but did not reach the horizon: it
  // does not count as finished.
  others.push_back(FromFunction(6, Rise(0.6, 0.2), 20, true));
  EXPECT_EQ(LearningCurveOf(6).Decide(poor, others).reason, "");
  others.push_back(FromFunction(7, Rise(0.6, 0.2), 50, true));
  EXPECT_TRUE(LearningCurveOf(6).Decide(poor, others).should_stop);
}

TEST(LearningCurvePolicyTest, WaitsForTheStartStepAndStopsNothingAtTheHorizon) {
  const std::vector<LearningCurve> others = FiveFinished();
  EXPECT_EQ(
      LearningCurveOf(3, 20).Decide(FromFunction(9, Rise(0.6, 0.2), 15, false), others).reason, "");
  EXPECT_TRUE(LearningCurveOf(3, 15)
                  .Decide(FromFunction(9, Rise(0.6, 0.2), 15, false), others)
                  .should_stop);
  // At the longest finished curve's last step there is nothing left to save.
  EXPECT_EQ(LearningCurveOf().Decide(FromFunction(9, Rise(0.6, 0.2), 50, false), others).reason,
            "");
  // max_step sets the horizon instead: curves that ended before it are not
  // finished.
  EXPECT_EQ(
      LearningCurveOf(3, 0, 60).Decide(FromFunction(9, Rise(0.6, 0.2), 15, false), others).reason,
      "");
}

TEST(LearningCurvePolicyTest, MinimisedMetricsAreJudgedDownwards) {
  std::vector<LearningCurve> losses;
  for (int i = 0; i < 5; ++i) {
    losses.push_back(FromFunction(
        i + 1, [i](int step) { return 1 - Rise(0.7 + 0.05 * i, 0.2)(step); }, 50, true));
  }
  const auto loss = [](double top) { return [top](int step) { return 1 - Rise(top, 0.2)(step); }; };
  const LearningCurvePolicy policy = LearningCurveOf(3, 0, 0, v1::MetricSpec::MINIMIZE);
  EXPECT_TRUE(policy.Decide(FromFunction(9, loss(0.6), 15, false), losses).should_stop);
  EXPECT_FALSE(policy.Decide(FromFunction(9, loss(0.92), 15, false), losses).should_stop);
}

TEST(LearningCurvePolicyTest, IgnoresAnEntryOfTheTrialItself) {
  std::vector<LearningCurve> others = FiveFinished();
  const LearningCurve trial = FromFunction(9, Rise(0.6, 0.2), 15, false);
  const StoppingDecision alone = LearningCurveOf().Decide(trial, others);
  others.push_back(FromFunction(
      9, [](int) { return 0.99; }, 50, true));
  EXPECT_EQ(LearningCurveOf().Decide(trial, others).reason, alone.reason);
}

// FiveFinished, and five trials stopped at step 10 below all of them.
std::vector<LearningCurve> FiveFinishedFiveStopped() {
  std::vector<LearningCurve> curves = FiveFinished();
  for (int i = 0; i < 5; ++i)
    curves.push_back(FromFunction(20 + i, Rise(0.52 + 0.01 * i, 0.2), 10, true));
  return curves;
}

TEST(LearningCurvePolicyTest, EarlyOnKeepsATrialStillImprovingAheadOfMostOthers) {
  // At step 8 of 50 (under a quarter), still rising, and ahead of the five
  // stopped trials: 5 of the 10 others are ahead of it, under 60%.
  const LearningCurve trial = FromFunction(9, Rise(0.6, 0.2), 8, false);
  const StoppingDecision kept = LearningCurveOf().Decide(trial, FiveFinishedFiveStopped());
  EXPECT_FALSE(kept.should_stop);
  EXPECT_THAT(kept.reason, HasSubstr("still improving and within the best 60% of the trials at "
                                     "this step; none is stopped before step 12.5 while so"));
  // Without the guard the model stops it: it cannot catch the best.
  LearningCurvePolicyOptions unguarded{.goal = v1::MetricSpec::MAXIMIZE, .min_trials = 3};
  unguarded.guard_fraction = 0;
  EXPECT_TRUE(LearningCurvePolicy(unguarded).Decide(trial, FiveFinishedFiveStopped()).should_stop);
}

TEST(LearningCurvePolicyTest, TheEarlyGuardKeepsNeitherALaggardNorAFlatTrialNorALateOne) {
  // Behind every other trial at its step (the finished ones only).
  EXPECT_TRUE(LearningCurveOf()
                  .Decide(FromFunction(9, Rise(0.6, 0.2), 8, false), FiveFinished())
                  .should_stop);
  // Ahead of the stopped ones, but no better than at half its steps.
  const StoppingDecision flat = LearningCurveOf().Decide(
      FromFunction(
          9, [](int step) { return step <= 4 ? 0.58 - 0.01 * (4 - step) : 0.575; }, 8, false),
      FiveFinishedFiveStopped());
  EXPECT_THAT(flat.reason, ::testing::Not(HasSubstr("still improving")));
  // Past a quarter of the horizon (step 15 of 50) the model alone decides.
  const StoppingDecision late = LearningCurveOf().Decide(FromFunction(9, Rise(0.6, 0.2), 15, false),
                                                         FiveFinishedFiveStopped());
  EXPECT_THAT(late.reason, ::testing::Not(HasSubstr("still improving")));
  EXPECT_TRUE(late.should_stop);
}

TEST(LearningCurvePolicyTest, TheEarlyGuardComparesWithHalfItsStepsRoundedDown) {
  // Rising to step 2, then one report no better (a noisy metric): at step 3
  // it is still better than at step 1, half of 3 rounded down, and ahead of
  // the five stopped trials, so it is kept.
  const std::function<double(int)> rise = Rise(0.6, 0.2);
  const std::function<double(int)> held = [rise](int step) { return rise(std::min(step, 2)); };
  const StoppingDecision kept =
      LearningCurveOf().Decide(FromFunction(9, held, 3, false), FiveFinishedFiveStopped());
  EXPECT_FALSE(kept.should_stop);
  EXPECT_THAT(kept.reason, HasSubstr("still improving"));
  LearningCurvePolicyOptions unguarded{.goal = v1::MetricSpec::MAXIMIZE, .min_trials = 3};
  unguarded.guard_fraction = 0;
  EXPECT_TRUE(LearningCurvePolicy(unguarded)
                  .Decide(FromFunction(9, held, 3, false), FiveFinishedFiveStopped())
                  .should_stop);
  // At step 4 it is no better than at step 2: no longer guarded.
  EXPECT_THAT(
      LearningCurveOf().Decide(FromFunction(9, held, 4, false), FiveFinishedFiveStopped()).reason,
      ::testing::Not(HasSubstr("still improving")));
}

TEST(LearningCurvePolicyTest, TheEarlyGuardAsksForAnImprovementBeyondTheNoise) {
  // The five finished trials report 0.03 above and below their curves in
  // turn (a report's noise of about 0.06), and five trials stopped at step
  // 10 lag below them all.
  std::vector<LearningCurve> others;
  for (int i = 0; i < 5; ++i) {
    const std::function<double(int)> rise = Rise(0.7 + 0.05 * i, 0.2);
    others.push_back(FromFunction(
        i + 1, [rise](int step) { return rise(step) + (step % 2 == 0 ? 0.03 : -0.03); }, 50, true));
  }
  for (int i = 0; i < 5; ++i)
    others.push_back(FromFunction(20 + i, Rise(0.52 + 0.01 * i, 0.2), 10, true));
  // At step 8, 0.01 better than by step 4: within the noise, a plateau,
  // so the model decides.
  const LearningCurve creeping = FromFunction(
      9, [](int step) { return step <= 4 ? 0.62 : 0.63; }, 8, false);
  EXPECT_THAT(LearningCurveOf().Decide(creeping, others).reason,
              ::testing::Not(HasSubstr("still improving")));
  // 0.1 better than by step 4: well beyond it, so guarded.
  const LearningCurve climbing = FromFunction(
      9, [](int step) { return step <= 4 ? 0.62 : 0.72; }, 8, false);
  EXPECT_THAT(LearningCurveOf().Decide(climbing, others).reason, HasSubstr("still improving"));
}

TEST(LearningCurvePolicyTest, EarlyOnATrialsOwnSwingsWidenItsSpread) {
  // Rising towards 0.75, where the best finished trial ends at 0.9: a
  // smooth curve is stopped at step 8 of 50 (behind 4 of the 5 finished
  // trials, so not guarded).
  const std::function<double(int)> smooth = Rise(0.75, 0.2);
  const StoppingDecision steady =
      LearningCurveOf().Decide(FromFunction(9, smooth, 8, false), FiveFinished());
  EXPECT_TRUE(steady.should_stop);
  EXPECT_THAT(steady.reason, ::testing::Not(HasSubstr("its own swings")));
  // The same best values, but every other report falls back by 0.15 (SGD
  // at a high learning rate): it may still jump far, so it is kept.
  const std::function<double(int)> erratic = [smooth](int step) {
    return smooth(step) - (step % 2 == 0 ? 0.15 : 0);
  };
  const StoppingDecision kept =
      LearningCurveOf().Decide(FromFunction(9, erratic, 8, false), FiveFinished());
  EXPECT_FALSE(kept.should_stop);
  EXPECT_THAT(kept.reason, HasSubstr("its own swings"));
  // Past the first quarter (step 15 of 50) the swings no longer widen the
  // model's spread (the trial's luck is judged apart: the next test).
  const StoppingDecision late =
      LearningCurveOf().Decide(FromFunction(9, erratic, 15, false), FiveFinished());
  EXPECT_THAT(late.reason, ::testing::Not(HasSubstr("its own swings")));
  // With the guard's window off, so is the widening.
  LearningCurvePolicyOptions unguarded{.goal = v1::MetricSpec::MAXIMIZE, .min_trials = 3};
  unguarded.guard_fraction = 0;
  EXPECT_THAT(LearningCurvePolicy(unguarded)
                  .Decide(FromFunction(9, erratic, 8, false), FiveFinished())
                  .reason,
              ::testing::Not(HasSubstr("its own swings")));
}

TEST(LearningCurvePolicyTest, ATrialThatSpikesMayDipAsFarAsItJumps) {
  // Flat at 0.80 by step 21 of 50, as the quiet trial below, but for one
  // report at step 16 that fell to 0.55 (an unstable run): its calm
  // stretch gives no noise, but a run that jumps by 0.25 may as well jump
  // up by the 0.1 it lacks. 2 of its last 11 changes are that large, so
  // each of its 29 reports left has about a 9% chance.
  const LearningCurve spiky = FromFunction(
      9, [](int step) { return step == 16 ? 0.55 : 0.80; }, 21, false);
  const StoppingDecision kept = LearningCurveOf().Decide(spiky, FiveFinished());
  EXPECT_FALSE(kept.should_stop);
  EXPECT_THAT(kept.reason, HasSubstr("by luck: 2 of its last 11 changes were as large as the gap "
                                     "from its last value 0.8, over its 29 reports left"));
  // The same spike, but too small to cover the gap: stopped.
  const LearningCurve small = FromFunction(
      9, [](int step) { return step == 16 ? 0.75 : 0.80; }, 21, false);
  EXPECT_TRUE(LearningCurveOf().Decide(small, FiveFinished()).should_stop);
}

// Five finished trials whose reports lie 0.005 above and below their curves
// in turn (a report's noise of about 0.01), ending at 0.70 to 0.90.
std::vector<LearningCurve> FiveNoisyFinished() {
  std::vector<LearningCurve> curves;
  for (int i = 0; i < 5; ++i) {
    const std::function<double(int)> rise = Rise(0.7 + 0.05 * i, 0.2);
    curves.push_back(FromFunction(
        i + 1, [rise](int step) { return rise(step) + (step % 2 == 0 ? 0.005 : -0.005); }, 50,
        true));
  }
  return curves;
}

TEST(LearningCurvePolicyTest, ATieWithinTheMarginIsNotAWin) {
  // At step 30 of 50 a quiet trial that has flattened at 0.888, about one
  // and a half report noises under the best report so far (0.905): it may
  // yet end a little better, or not.
  const LearningCurve level = FromFunction(9, Rise(0.888, 0.2), 30, false);
  // With no tie margin any amount better is better: kept.
  LearningCurvePolicyOptions any{.goal = v1::MetricSpec::MAXIMIZE, .min_trials = 3};
  any.tie_margin = 0;
  const StoppingDecision kept = LearningCurvePolicy(any).Decide(level, FiveNoisyFinished());
  EXPECT_FALSE(kept.should_stop) << kept.reason;
  EXPECT_THAT(kept.reason, ::testing::Not(HasSubstr("by more than")));
  EXPECT_THAT(kept.reason, ::testing::Not(HasSubstr("counts")));
  // With a tie margin of one report's noise, ending within the noise of the
  // best is a tie, and a tie is not worth the 20 steps left: stopped.
  LearningCurvePolicyOptions ties{.goal = v1::MetricSpec::MAXIMIZE, .min_trials = 3};
  ties.tie_margin = 1;
  const StoppingDecision stopped = LearningCurvePolicy(ties).Decide(level, FiveNoisyFinished());
  EXPECT_TRUE(stopped.should_stop) << stopped.reason;
  EXPECT_THAT(stopped.reason, HasSubstr("the best so far, by more than"));
  EXPECT_THAT(stopped.reason, HasSubstr("(1 times a report's noise"));
  // Unset, the margin is chosen from the finished curves: their values vary
  // continuously, so one report's noise, as set above.
  const StoppingDecision by_default = LearningCurveOf().Decide(level, FiveNoisyFinished());
  EXPECT_TRUE(by_default.should_stop) << by_default.reason;
  EXPECT_THAT(by_default.reason, HasSubstr("(1 times a report's noise"));
}

// `curve` as counts: each value rounded to a multiple of 1/200, as an
// accuracy on 200 validation samples is.
LearningCurve Counted(LearningCurve curve) {
  return Mapped(std::move(curve), [](double value) { return std::round(value * 200) / 200; });
}

TEST(LearningCurvePolicyTest, ForCountsOneCountBetterIsAWinByDefault) {
  // The curves above as accuracies on 200 samples: the reports move by one
  // or two samples (a report's noise of about two samples), and the best so
  // far is 0.905, 181 of 200.
  std::vector<LearningCurve> finished;
  for (const LearningCurve& curve : FiveNoisyFinished()) finished.push_back(Counted(curve));
  const LearningCurve level = Counted(FromFunction(9, Rise(0.888, 0.2), 30, false));  // 0.885
  // Ending a sample or two better is a win the user keeps, so there is no
  // tie margin: kept, as with tie_margin 0.
  const StoppingDecision kept = LearningCurveOf().Decide(level, finished);
  EXPECT_FALSE(kept.should_stop) << kept.reason;
  EXPECT_THAT(kept.reason, HasSubstr("by any amount (its values are counts, in steps of 0.005)"));
  // Counts are modelled on a log scale of their distance to the bound (an
  // accuracy of 1).
  EXPECT_THAT(kept.reason, HasSubstr("as counts, on a log scale"));
  EXPECT_THAT(kept.reason, HasSubstr("of its distance to 1"));
  LearningCurvePolicyOptions any{.goal = v1::MetricSpec::MAXIMIZE, .min_trials = 3};
  any.tie_margin = 0;
  EXPECT_FALSE(LearningCurvePolicy(any).Decide(level, finished).should_stop);
  // A margin set explicitly holds for counts too (a validation sample drawn
  // anew at each report): stopped.
  LearningCurvePolicyOptions ties{.goal = v1::MetricSpec::MAXIMIZE, .min_trials = 3};
  ties.tie_margin = 1;
  const StoppingDecision stopped = LearningCurvePolicy(ties).Decide(level, finished);
  EXPECT_TRUE(stopped.should_stop) << stopped.reason;
  EXPECT_THAT(stopped.reason, ::testing::Not(HasSubstr("its values are counts")));
}

TEST(LearningCurvePolicyTest, TheTieMarginUnsetIsNoneForCountsAndOneNoiseOtherwise) {
  const LearningCurvePolicy unset = LearningCurveOf();
  // No lattice, or one far finer than the noise (values written with six
  // decimals): one report's noise.
  EXPECT_DOUBLE_EQ(unset.TieMargin(0.01, 0), 0.01);
  EXPECT_DOUBLE_EQ(unset.TieMargin(0.01, 1e-6), 0.01);
  EXPECT_FALSE(unset.AreCounts(0.01, 1e-6));
  // A lattice step of at least an eighth of the noise: counts, no margin.
  EXPECT_TRUE(unset.AreCounts(0.01, 0.00125));
  EXPECT_DOUBLE_EQ(unset.TieMargin(0.01, 0.00125), 0);
  EXPECT_DOUBLE_EQ(unset.TieMargin(0.01, 0.005), 0);
  EXPECT_DOUBLE_EQ(unset.TieMargin(0.01, 0.0012), 0.01);
  // Noise-free counts (every report equal to the last): no margin either way.
  EXPECT_DOUBLE_EQ(unset.TieMargin(0, 0.005), 0);
  // Set, the margin is the setting's, counts or not.
  LearningCurvePolicyOptions set{.goal = v1::MetricSpec::MAXIMIZE};
  set.tie_margin = 2;
  EXPECT_DOUBLE_EQ(LearningCurvePolicy(set).TieMargin(0.01, 0.005), 0.02);
  EXPECT_FALSE(LearningCurvePolicy(set).AreCounts(0.01, 0.005));
  set.tie_margin = 0;
  EXPECT_DOUBLE_EQ(LearningCurvePolicy(set).TieMargin(0.01, 0), 0);
}

TEST(LearningCurvePolicyTest, ANoisyTrialNearTheBestMayStillWinByLuck) {
  // Flat at 0.80 by step 21 of 50, where the best finished trial ends at
  // 0.90: quiet, the model stops it.
  const LearningCurve quiet = FromFunction(
      9, [](int) { return 0.80; }, 21, false);
  const StoppingDecision stopped = LearningCurveOf().Decide(quiet, FiveFinished());
  EXPECT_TRUE(stopped.should_stop);
  EXPECT_THAT(stopped.reason, ::testing::Not(HasSubstr("by luck")));
  // The same level, its reports 0.04 above or below it in turn: its final
  // value is the best of its reports, and one of its 29 reports left may
  // well beat 0.90 (each about a 24% chance from its last, 0.84).
  const LearningCurve noisy = FromFunction(
      9, [](int step) { return 0.80 + (step % 2 == 1 ? 0.04 : -0.04); }, 21, false);
  const StoppingDecision kept = LearningCurveOf().Decide(noisy, FiveFinished());
  EXPECT_FALSE(kept.should_stop);
  EXPECT_THAT(kept.reason, HasSubstr("by luck: its own noise"));
  EXPECT_THAT(kept.reason, HasSubstr("over its 29 reports left"));
  // As noisy, but far behind (0.60): its luck does not reach the best.
  const LearningCurve behind = FromFunction(
      9, [](int step) { return 0.60 + (step % 2 == 1 ? 0.04 : -0.04); }, 21, false);
  EXPECT_TRUE(LearningCurveOf().Decide(behind, FiveFinished()).should_stop);
  // Reports every 10 steps: the same 29 steps hold 3 reports, not 29.
  LearningCurve sparse{.trial_id = 9, .points = {}, .completed = false};
  for (int report = 1; report <= 21; ++report) {
    sparse.points.push_back({.step = 10 * report, .value = noisy.points[report - 1].value});
  }
  std::vector<LearningCurve> long_finished;
  for (int i = 0; i < 5; ++i) {
    LearningCurve curve{.trial_id = i + 1, .points = {}, .completed = true};
    for (int report = 1; report <= 50; ++report) {
      curve.points.push_back({.step = 10 * report, .value = Rise(0.7 + 0.05 * i, 0.2)(report)});
    }
    long_finished.push_back(std::move(curve));
  }
  const StoppingDecision sparse_decision = LearningCurveOf().Decide(sparse, long_finished);
  EXPECT_THAT(sparse_decision.reason, HasSubstr("over its 29 reports left"));
}

}  // namespace
}  // namespace vernier::suggest
