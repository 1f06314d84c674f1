#include "suggest/gp/plateau_margin.h"

#include <Eigen/Dense>
#include <initializer_list>

#include "gtest/gtest.h"

namespace vernier::suggest {
namespace {

Eigen::VectorXd Values(std::initializer_list<double> values) {
  Eigen::VectorXd vector(values.size());
  int i = 0;
  for (double value : values) vector[i++] = value;
  return vector;
}

TEST(PlateauMarginTest, ZeroOffAPlateau) {
  const PlateauMargin margin;
  EXPECT_EQ(margin.Margin(Eigen::VectorXd()), 0);
  // A continuous objective: no ties at all.
  EXPECT_EQ(margin.Margin(Values({0.1, 0.7, 0.3, 0.9, 0.5, 0.2, 0.8})), 0);
  // Four ties at the best are not yet a plateau.
  EXPECT_EQ(margin.Margin(Values({1, 1, 1, 1, 0.5, 0.25, 0})), 0);
  // Five ties, but not at the best.
  EXPECT_EQ(margin.Margin(Values({2, 1, 1, 1, 1, 1, 0})), 0);
}

TEST(PlateauMarginTest, HalfTheSmallestStepAmongTheBetterHalf) {
  const PlateauMargin margin;
  // Five at the best; the better half's distinct values are 1, 0.875 and
  // 0.75: steps of 0.125, whose half is the margin. The larger gaps below the median do not count.
  EXPECT_DOUBLE_EQ(margin.Margin(Values({1, 0.75, 1, 0.875, 1, 1, 0.75, 1, -3, -3.25, -5, -6, -7})),
                   0.0625);
  // The order of the observations does not matter.
  EXPECT_DOUBLE_EQ(margin.Margin(Values({-7, 1, -6, 0.875, 1, -5, 0.75, 1, -3.25, 1, -3, 0.75, 1})),
                   0.0625);
}

TEST(PlateauMarginTest, TheStepBelowTheBestWhenTheBetterHalfIsThePlateau) {
  const PlateauMargin margin;
  // Six of nine at the best: the better half is the plateau alone, so the
  // step is the one down to the next value.
  EXPECT_DOUBLE_EQ(margin.Margin(Values({2, 2, 2, 2, 2, 2, 1.5, 0, -1})), 0.25);
  // Every value equal: no step has been seen.
  EXPECT_EQ(margin.Margin(Values({3, 3, 3, 3, 3, 3})), 0);
}

}  // namespace
}  // namespace vernier::suggest
