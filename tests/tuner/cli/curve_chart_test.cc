#include "tuner/cli/curve_chart.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace vernier::cli {
namespace {

TEST(CurveChartTest, DrawsEachPointInItsRowWithTheRangeAndTheSteps) {
  const std::vector<CurvePoint> points = {{1, 0.5}, {2, 0.55}, {3, 0.7}, {4, 0.9}};
  EXPECT_EQ(RenderCurveChart(points, 60, 3),
            "0.9 |   *\n"
            "    |  *\n"
            "0.5 |**\n"
            "    +----\n"
            "     step 1  step 4\n");
}

TEST(CurveChartTest, MorePointsThanColumnsShowTheLastOfEachColumn) {
  std::vector<CurvePoint> points;
  for (int step = 1; step <= 100; ++step) points.push_back({step, step <= 50 ? 0.0 : 1.0});
  EXPECT_EQ(RenderCurveChart(points, 10, 2),
            "1 |     *****\n"
            "0 |*****\n"
            "  +----------\n"
            "   step 1  step 100\n");
}

TEST(CurveChartTest, AFlatCurveSitsInTheMiddleAndNonFiniteValuesAreLeftOut) {
  const std::vector<CurvePoint> points = {
      {2, 0.25}, {1, std::numeric_limits<double>::quiet_NaN()}, {3, 0.25},
      {4, std::numeric_limits<double>::infinity()}};
  EXPECT_EQ(RenderCurveChart(points, 60, 3),
            "0.25 |\n"
            "     |**\n"
            "0.25 |\n"
            "     +--\n"
            "      step 2  step 3\n");
  EXPECT_EQ(RenderCurveChart(std::vector<CurvePoint>{{1, std::nan("")}}, 60, 3), "");
  EXPECT_EQ(RenderCurveChart(std::vector<CurvePoint>{}, 60, 3), "");
}

}  // namespace
}  // namespace vernier::cli
