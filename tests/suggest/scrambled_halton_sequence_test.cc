#include "suggest/scrambled_halton_sequence.h"

#include <cmath>
#include <set>
#include <vector>

#include "gtest/gtest.h"

namespace vernier::suggest {
namespace {

TEST(ScrambledHaltonSequenceTest, PointsLieInTheUnitCube) {
  const ScrambledHaltonSequence sequence(50, 7);
  for (uint64_t i = 0; i < 2000; ++i) {
    for (double x : sequence.Point(i)) {
      ASSERT_GE(x, 0.0);
      ASSERT_LT(x, 1.0);
    }
  }
}

TEST(ScrambledHaltonSequenceTest, EveryBlockOfBaseToTheKPointsFillsEveryCell) {
  const ScrambledHaltonSequence sequence(3, 11);
  // Coordinate 0 has base 2, coordinate 2 base 5: 64 consecutive points from
  // a multiple of 64 hit each of 64 cells once, 125 points each of 125.
  for (const auto& [coordinate, cells] : {std::pair{0, 64}, std::pair{2, 125}}) {
    for (uint64_t start : {uint64_t{0}, uint64_t(cells) * 3}) {
      std::set<int> hit;
      for (int i = 0; i < cells; ++i) {
        hit.insert(static_cast<int>(std::floor(sequence.Point(start + i)[coordinate] * cells)));
      }
      EXPECT_EQ(hit.size(), static_cast<size_t>(cells)) << coordinate << " from " << start;
    }
  }
}

TEST(ScrambledHaltonSequenceTest, TheSeedChoosesTheScramble) {
  const ScrambledHaltonSequence a(4, 1);
  const ScrambledHaltonSequence b(4, 1);
  const ScrambledHaltonSequence c(4, 2);
  EXPECT_EQ(a.Point(17), b.Point(17));
  EXPECT_NE(a.Point(17), c.Point(17));
  // Scrambling moves point 0 off the origin.
  for (double x : a.Point(0)) EXPECT_GT(x, 0.0);
}

TEST(ScrambledHaltonSequenceTest, CoversTheSquareMoreEvenlyThanItsWorstCell) {
  // 256 points in 2-d: every one of the 16 x 16 cells' rows and columns is
  // hit exactly once per 16 points in the base-2 coordinate, and no 4 x 4
  // block of the square is empty.
  const ScrambledHaltonSequence sequence(2, 5);
  std::vector<int> blocks(16, 0);
  for (uint64_t i = 0; i < 256; ++i) {
    const std::vector<double> p = sequence.Point(i);
    ++blocks[static_cast<int>(p[0] * 4) * 4 + static_cast<int>(p[1] * 4)];
  }
  for (int count : blocks) {
    EXPECT_GE(count, 12);
    EXPECT_LE(count, 20);
  }
}

}  // namespace
}  // namespace vernier::suggest
