#include "suggest/gp/outlier_filter.h"

#include <cmath>
#include <vector>

#include "gtest/gtest.h"
#include "suggest/gp/gaussian_process.h"
#include "suggest/gp/matern_kernel.h"

namespace vernier::suggest {
namespace {

// A smooth bowl on a 7 x 7 grid of the unit square, larger is better (the
// designer's convention), best at (0.5, 0.5).
struct Bowl {
  Eigen::MatrixXd points{2, 49};
  Eigen::VectorXd values{49};
  Bowl() {
    for (int i = 0; i < 7; ++i) {
      for (int j = 0; j < 7; ++j) {
        const double x0 = i / 6.0;
        const double x1 = j / 6.0;
        points.col(7 * i + j) = Eigen::Vector2d(x0, x1);
        values[7 * i + j] = 1.0 - 4.0 * ((x0 - 0.5) * (x0 - 0.5) + (x1 - 0.5) * (x1 - 0.5));
      }
    }
  }
  int At(int i, int j) const { return 7 * i + j; }
};



// Observation noise of 3% of the signal variance. With much less, the
// neighbours of one odd value are judged by it too: a fitted noise absorbs
// part of such a value.
constexpr double kNoise = 0.03;

std::vector<int> Outliers(const Bowl& bowl, OutlierFilter::Options options = {}) {
  const MaternKernel kernel({false, false}, Eigen::Vector2d(0.4, 0.4), 1.0);
  absl::StatusOr<GaussianProcess> model =
      GaussianProcess::Create(kernel, kNoise, bowl.points, bowl.values);
  EXPECT_TRUE(model.ok()) << model.status();
  return OutlierFilter(options).Outliers(*model, bowl.values);
}

TEST(OutlierFilterTest, FindsNothingOnASmoothFunction) {
  EXPECT_TRUE(Outliers(Bowl()).empty());
}

TEST(OutlierFilterTest, FindsAPoorValueAmongGoodNeighbours) {
  Bowl bowl;
  // Next to the best, a report as poor as the box's corners.
  bowl.values[bowl.At(3, 4)] = -1.0;
  EXPECT_EQ(Outliers(bowl), std::vector<int>{bowl.At(3, 4)});
}

TEST(OutlierFilterTest, KeepsAValueBetterThanPredicted) {
  Bowl bowl;
  bowl.values[bowl.At(3, 4)] = 3.0;
  EXPECT_TRUE(Outliers(bowl).empty());
}

TEST(OutlierFilterTest, KeepsAPoorValueWhereTheOthersPredictPoorValues) {
  Bowl bowl;
  // A corner, below the median already: far worse than its neighbours, but
  // where the model's shape matters little.
  bowl.values[bowl.At(0, 0)] = -10.0;
  EXPECT_TRUE(Outliers(bowl).empty());
}

TEST(OutlierFilterTest, ThresholdDecides) {
  Bowl bowl;
  bowl.values[bowl.At(3, 4)] = 0.5;
  EXPECT_TRUE(Outliers(bowl).empty());
  OutlierFilter::Options lenient;
  lenient.threshold = 0.5;
  EXPECT_EQ(Outliers(bowl, lenient), std::vector<int>{bowl.At(3, 4)});
}

TEST(OutlierFilterTest, KeepsAtMostItsShareTheFurthestBelowFirst) {
  Bowl bowl;
  bowl.values[bowl.At(3, 4)] = -2.0;
  bowl.values[bowl.At(2, 3)] = -0.5;
  bowl.values[bowl.At(4, 2)] = -1.0;
  EXPECT_EQ(Outliers(bowl), (std::vector<int>{bowl.At(2, 3), bowl.At(3, 4), bowl.At(4, 2)}));
  OutlierFilter::Options one;
  one.max_share = 1.5 / 49;
  EXPECT_EQ(Outliers(bowl, one), std::vector<int>{bowl.At(3, 4)});
  OutlierFilter::Options none;
  none.max_share = 0.5 / 49;
  EXPECT_TRUE(Outliers(bowl, none).empty());
}

}  // namespace
}  // namespace vernier::suggest
