#include "suggest/gp/front_reference.h"

#include <Eigen/Dense>
#include <cmath>
#include <initializer_list>
#include <optional>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace vernier::suggest {
namespace {

// Three objectives (rows), larger is better; columns are trials.
Eigen::MatrixXd Trials(std::initializer_list<std::initializer_list<double>> columns) {
  Eigen::MatrixXd warped(3, static_cast<Eigen::Index>(columns.size()));
  Eigen::Index j = 0;
  for (const auto& column : columns) {
    Eigen::Index k = 0;
    for (double value : column) warped(k++, j) = value;
    ++j;
  }
  return warped;
}

TEST(FrontReferenceTest, BelowEveryTrialByATenthOfTheSpread) {
  const Eigen::MatrixXd warped = Trials({{0, 2, 1}, {2, 0, 1}, {1, 1, 1}});
  const Eigen::VectorXd reference = FrontReference().BelowTrials(warped);
  const double spread = std::sqrt(2.0 / 3.0);  // of {0, 2, 1}
  EXPECT_DOUBLE_EQ(reference[0], -0.1 * spread);
  EXPECT_DOUBLE_EQ(reference[1], -0.1 * spread);
  // Every trial has the same value: 1e-9 below it.
  EXPECT_DOUBLE_EQ(reference[2], 1 - 0.1 * 1e-9);
}

// A front from 0 to 10 in every objective. The two cheap corners (objectives
// 1 and 2 at their best) hold many trials: four each in their better half,
// objective 0 one, so objective 0 is the focus, 15 times in 16.
Eigen::MatrixXd CrowdedCheapCorner() {
  return Trials({{10, 0, 0}, {0, 10, 10}, {0, 9, 9}, {1, 10, 8}, {2, 8, 10}, {0, 0, 0}});
}

TEST(FrontReferenceTest, TheFocusIsTheObjectiveWhoseBetterHalfHasFewestTrials) {
  const std::vector<int> front = {0, 1, 2, 3, 4};
  std::mt19937_64 rng(7);
  int focused = 0;
  for (int draw = 0; draw < 400; ++draw) {
    const std::optional<int> focus =
        FrontReference().FocusObjective(CrowdedCheapCorner(), front, rng);
    if (!focus.has_value()) continue;
    EXPECT_EQ(*focus, 0);
    ++focused;
  }
  // Probability 1 - (1/4)^2.
  EXPECT_GT(focused, 350);
  EXPECT_LT(focused, 396);
}

TEST(FrontReferenceTest, NoFocusOnABalancedFront) {
  // Each objective's better half holds one trial.
  const Eigen::MatrixXd warped = Trials({{10, 0, 0}, {0, 10, 0}, {0, 0, 10}});
  std::mt19937_64 rng(11);
  for (int draw = 0; draw < 100; ++draw) {
    EXPECT_FALSE(FrontReference().FocusObjective(warped, {0, 1, 2}, rng).has_value());
  }
}

TEST(FrontReferenceTest, TiesForTheFocusAreDrawnAtRandom) {
  // A front of two trials and a dominated third. Objectives 0 and 1: one
  // trial in their better half; objective 2 (one value on the front, so
  // the values' spread is the width): two. A focus with probability
  // 1 - (1/2)^2, on 0 or 1.
  const Eigen::MatrixXd warped = Trials({{10, 0, 10}, {0, 10, 10}, {0, 0, 0}});
  std::vector<int> seen(3, 0);
  std::mt19937_64 rng(13);
  for (int draw = 0; draw < 300; ++draw) {
    const std::optional<int> focus = FrontReference().FocusObjective(warped, {0, 1}, rng);
    if (focus.has_value()) ++seen[*focus];
  }
  EXPECT_GT(seen[0], 80);
  EXPECT_GT(seen[1], 80);
  EXPECT_GT(seen[0] + seen[1], 190);
  EXPECT_LT(seen[0] + seen[1], 260);
  EXPECT_EQ(seen[2], 0);
}

TEST(FrontReferenceTest, InsideTheFrontAndTightInTheFocus) {
  const std::vector<int> front = {0, 1, 2, 3, 4};
  std::mt19937_64 rng(3);
  int unfocused = 0;
  for (int draw = 0; draw < 200; ++draw) {
    const Eigen::VectorXd reference =
        FrontReference().InsideFront(CrowdedCheapCorner(), front, rng);
    // Objective 0, the focus when there is one: 50 to 70% of the width 10
    // inside the worst, 0; otherwise 10%.
    if (reference[0] == 1.0) {
      ++unfocused;
    } else {
      EXPECT_GE(reference[0], 5.0);
      EXPECT_LE(reference[0], 7.0);
    }
    // The others: 10% of their width (10, from 0) inside.
    EXPECT_DOUBLE_EQ(reference[1], 1.0);
    EXPECT_DOUBLE_EQ(reference[2], 1.0);
  }
  // No focus, probability (1/4)^2.
  EXPECT_GT(unfocused, 3);
  EXPECT_LT(unfocused, 30);
}

TEST(FrontReferenceTest, AFrontOfOneValueUsesTheValuesSpread) {
  // Objective 2: the front's two points share the value 4; the trials'
  // values 4, 4, 0 have a spread of sqrt(32) / 3. It is not the focus: its
  // better half holds two trials, objective 0's and 1's one each.
  const Eigen::MatrixXd warped = Trials({{2, 0, 4}, {0, 2, 4}, {0, 0, 0}});
  std::mt19937_64 rng(5);
  const std::vector<int> front = {0, 1};
  EXPECT_NE(FrontReference().FocusObjective(warped, front, rng), 2);
  const Eigen::VectorXd reference = FrontReference().InsideFront(warped, front, rng);
  EXPECT_DOUBLE_EQ(reference[2], 4 + 0.1 * std::sqrt(32.0) / 3);
}

}  // namespace
}  // namespace vernier::suggest
