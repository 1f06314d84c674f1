#include "suggest/gp/training_set_selector.h"

#include <algorithm>
#include <random>

#include "gtest/gtest.h"

namespace vernier::suggest {
namespace {

bool Contains(const std::vector<int>& indices, int index) {
  return std::find(indices.begin(), indices.end(), index) != indices.end();
}

TEST(TrainingSetSelectorTest, KeepsEverythingUnderTheCapacity) {
  const TrainingSetSelector selector({false});
  Eigen::MatrixXd points = Eigen::MatrixXd::Random(1, 5);
  EXPECT_EQ(selector.Select(points, Eigen::VectorXd::Zero(5), 5),
            (std::vector<int>{0, 1, 2, 3, 4}));
}

TEST(TrainingSetSelectorTest, KeepsTheBestTheMostRecentAndAnIsolatedPoint) {
  // 1000 points crowded in [0, 0.1]^2, one alone at (1, 1).
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> crowd(0.0, 0.1);
  Eigen::MatrixXd points(2, 1000);
  Eigen::VectorXd values(1000);
  for (int i = 0; i < 1000; ++i) {
    points(0, i) = crowd(rng);
    points(1, i) = crowd(rng);
    values[i] = -i % 97;
  }
  points.col(500) << 1.0, 1.0;
  values[123] = 10.0;  // The best.
  const TrainingSetSelector selector({false, false});
  const std::vector<int> selected = selector.Select(points, values, 100);
  ASSERT_EQ(selected.size(), 100u);
  EXPECT_TRUE(std::is_sorted(selected.begin(), selected.end()));
  EXPECT_TRUE(Contains(selected, 123));
  EXPECT_TRUE(Contains(selected, 500));
  for (int i = 980; i < 1000; ++i) EXPECT_TRUE(Contains(selected, i)) << i;
  EXPECT_EQ(selector.Select(points, values, 100), selected);
}

}  // namespace
}  // namespace vernier::suggest
