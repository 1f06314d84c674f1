#include "http/downsample.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace vernier::http {
namespace {

using ::testing::ElementsAre;

TEST(DownsampleTest, KeepsEveryPointUpToTheLimit) {
  EXPECT_THAT(DownsampleIndexes(0, 5), ElementsAre());
  EXPECT_THAT(DownsampleIndexes(3, 5), ElementsAre(0, 1, 2));
  EXPECT_THAT(DownsampleIndexes(5, 5), ElementsAre(0, 1, 2, 3, 4));
}

TEST(DownsampleTest, SpreadsTheLimitEvenlyKeepingBothEnds) {
  EXPECT_THAT(DownsampleIndexes(11, 3), ElementsAre(0, 5, 10));
  EXPECT_THAT(DownsampleIndexes(100, 2), ElementsAre(0, 99));
  const std::vector<size_t> many = DownsampleIndexes(100000, 50);
  ASSERT_EQ(many.size(), 50u);
  EXPECT_EQ(many.front(), 0u);
  EXPECT_EQ(many.back(), 99999u);
  for (size_t i = 1; i < many.size(); ++i) EXPECT_GT(many[i], many[i - 1]);
}

TEST(DownsampleTest, ALimitUnderTwoKeepsBothEnds) {
  EXPECT_THAT(DownsampleIndexes(10, 0), ElementsAre(0, 9));
  EXPECT_THAT(DownsampleIndexes(10, 1), ElementsAre(0, 9));
}

}  // namespace
}  // namespace vernier::http
