#include "bench/quality/quartiles.h"

#include <gtest/gtest.h>

namespace vernier::bench {
namespace {

TEST(QuartilesTest, InterpolatesBetweenOrderStatistics) {
  const Quartiles quartiles = ComputeQuartiles({4, 1, 3, 2});
  EXPECT_DOUBLE_EQ(quartiles.lower, 1.75);
  EXPECT_DOUBLE_EQ(quartiles.median, 2.5);
  EXPECT_DOUBLE_EQ(quartiles.upper, 3.25);
}

TEST(QuartilesTest, OfAnOddSampleTheMedianIsTheMiddleValue) {
  const Quartiles quartiles = ComputeQuartiles({5, 1, 9, 3, 7});
  EXPECT_DOUBLE_EQ(quartiles.lower, 3);
  EXPECT_DOUBLE_EQ(quartiles.median, 5);
  EXPECT_DOUBLE_EQ(quartiles.upper, 7);
}

TEST(QuartilesTest, OfOneValueAreThatValue) {
  const Quartiles quartiles = ComputeQuartiles({0.25});
  EXPECT_EQ(quartiles.lower, 0.25);
  EXPECT_EQ(quartiles.median, 0.25);
  EXPECT_EQ(quartiles.upper, 0.25);
}

TEST(QuartilesTest, OfNoValuesAreZero) {
  const Quartiles quartiles = ComputeQuartiles({});
  EXPECT_EQ(quartiles.median, 0);
}

}  // namespace
}  // namespace vernier::bench
