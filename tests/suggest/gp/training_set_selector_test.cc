#include "suggest/gp/training_set_selector.h"

#include <algorithm>
#include <cmath>
#include <limits>
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

TEST(TrainingSetSelectorTest, KeepsEveryPointNearTheCentreWhateverItsValue) {
  // 2000 points on a line in [0, 1]; the worst values lie nearest the centre
  // at 0.5, the best far from it.
  const int n = 2000;
  Eigen::MatrixXd points(1, n);
  Eigen::VectorXd values(n);
  for (int i = 0; i < n; ++i) {
    points(0, i) = (i * 7919 % n) / static_cast<double>(n);
    values[i] = std::abs(points(0, i) - 0.5);
  }
  TrainingSetSelector::Neighbourhood neighbourhood;
  neighbourhood.share = 0.5;
  neighbourhood.squared_distances = (points.row(0).array() - 0.5).square().transpose();
  const TrainingSetSelector selector({false});
  const std::vector<int> selected = selector.Select(points, values, 200, &neighbourhood);
  ASSERT_EQ(selected.size(), 200u);
  EXPECT_TRUE(std::is_sorted(selected.begin(), selected.end()));
  // The 100 nearest the centre, all within 0.025 of it.
  int near = 0;
  for (int i = 0; i < n; ++i) {
    if (std::abs(points(0, i) - 0.5) < 0.0249) {
      ++near;
      EXPECT_TRUE(Contains(selected, i)) << points(0, i);
    }
  }
  EXPECT_GE(near, 95);
  // The rest still holds the best and the latest.
  EXPECT_TRUE(Contains(selected, n - 1));
  int best = 0;
  values.maxCoeff(&best);
  EXPECT_TRUE(Contains(selected, best));
  // Without the neighbourhood, the centre's worst points are left out.
  const std::vector<int> plain = selector.Select(points, values, 200);
  int near_plain = 0;
  for (int index : plain) near_plain += std::abs(points(0, index) - 0.5) < 0.0249 ? 1 : 0;
  EXPECT_LT(near_plain, near / 2);
}

TEST(TrainingSetSelectorTest, ComparesCategoriesForEqualityWhenSpreading) {
  // Many points of category 0, one of category 2 numerically near them: the
  // spread keeps the lone category.
  const int n = 300;
  Eigen::MatrixXd points(2, n);
  Eigen::VectorXd values = Eigen::VectorXd::Zero(n);
  for (int i = 0; i < n; ++i) {
    points(0, i) = (i % 17) / 17.0;
    points(1, i) = 0;
  }
  points(1, 150) = 2;
  const TrainingSetSelector selector({false, true});
  EXPECT_TRUE(Contains(selector.Select(points, values, 20), 150));
}

// The selection written out plainly: the best, the most recent, then
// farthest-point sampling with every distance computed from the
// differences; `categorical` marks coordinates compared for equality.
std::vector<int> PlainSelection(const Eigen::MatrixXd& points, const Eigen::VectorXd& values,
                                int capacity, const std::vector<bool>& categorical) {
  const int n = static_cast<int>(points.cols());
  std::vector<bool> chosen(n, false);
  int count = 0;
  auto choose = [&](int i) {
    if (!chosen[i]) {
      chosen[i] = true;
      ++count;
    }
  };
  std::vector<int> by_value(n);
  for (int i = 0; i < n; ++i) by_value[i] = i;
  std::stable_sort(by_value.begin(), by_value.end(),
                   [&values](int a, int b) { return values[a] > values[b]; });
  const int best = static_cast<int>(TrainingSetSelector::kBestShare * capacity);
  for (int i = 0; i < best; ++i) choose(by_value[i]);
  const int recent = static_cast<int>(TrainingSetSelector::kRecentShare * capacity);
  for (int i = n - 1; i >= n - recent; --i) choose(i);
  auto distance = [&](int a, int b) {
    double sum = 0;
    for (Eigen::Index j = 0; j < points.rows(); ++j) {
      const double difference = points(j, a) - points(j, b);
      sum += categorical[j] ? (difference != 0 ? 1 : 0) : difference * difference;
    }
    return sum;
  };
  std::vector<double> nearest(n, std::numeric_limits<double>::infinity());
  for (int i = 0; i < n; ++i) {
    for (int k = 0; k < n && chosen[i]; ++k) nearest[k] = std::min(nearest[k], distance(i, k));
  }
  while (count < capacity) {
    int farthest = -1;
    for (int k = 0; k < n; ++k) {
      if (!chosen[k] && (farthest < 0 || nearest[k] > nearest[farthest])) farthest = k;
    }
    choose(farthest);
    for (int k = 0; k < n; ++k) nearest[k] = std::min(nearest[k], distance(farthest, k));
  }
  std::vector<int> selected;
  for (int i = 0; i < n; ++i) {
    if (chosen[i]) selected.push_back(i);
  }
  return selected;
}

TEST(TrainingSetSelectorTest, ALongHistorysSpreadIsTheFarthestPointSamplingWrittenOutPlainly) {
  // Long enough that the distances are computed in several blocks of chosen
  // points and several chunks of the history (thousands of points, more
  // than a hundred chosen before the spread), with a categorical coordinate.
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const int n = 2500;
  const std::vector<bool> categorical = {false, false, true, false, false};
  Eigen::MatrixXd points(5, n);
  Eigen::VectorXd values(n);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < 5; ++j) points(j, i) = categorical[j] ? std::floor(3 * unit(rng)) : unit(rng);
    values[i] = -std::abs(points(0, i) - 0.3) + 0.1 * unit(rng);
  }
  const TrainingSetSelector selector(categorical);
  EXPECT_EQ(selector.Select(points, values, 400), PlainSelection(points, values, 400, categorical));
}

TEST(TrainingSetSelectorTest, LeftOutIsWhatTheSelectionDoesNotHold) {
  EXPECT_EQ(TrainingSetSelector::LeftOut(6, {4, 0, 2}), (std::vector<int>{1, 3, 5}));
  EXPECT_EQ(TrainingSetSelector::LeftOut(3, {0, 1, 2}), std::vector<int>{});
  EXPECT_EQ(TrainingSetSelector::LeftOut(2, {}), (std::vector<int>{0, 1}));
}

}  // namespace
}  // namespace vernier::suggest
