#include "tuner/config/closest_match.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <vector>

namespace vernier::config {
namespace {

TEST(EditDistanceTest, CountsEditsAndAdjacentSwaps) {
  EXPECT_EQ(EditDistance("maxTrials", "maxTrials"), 0u);
  EXPECT_EQ(EditDistance("maxTrails", "maxTrials"), 1u);  // swap
  EXPECT_EQ(EditDistance("maxTrial", "maxTrials"), 1u);   // insertion
  EXPECT_EQ(EditDistance("maxTrialz", "maxTrials"), 1u);  // substitution
  EXPECT_EQ(EditDistance("maxtrials", "maxTrials"), 0u);  // case
  EXPECT_EQ(EditDistance("", "goal"), 4u);
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);
}

TEST(ClosestMatchTest, SuggestsOnlyCloseCandidates) {
  const std::vector<absl::string_view> keys = {"minValue", "maxValue", "type", "scaleType"};
  EXPECT_EQ(ClosestMatch("maxValeu", keys), "maxValue");
  EXPECT_EQ(ClosestMatch("scaletype", keys), "scaleType");
  EXPECT_EQ(ClosestMatch("tpye", keys), "type");
  EXPECT_EQ(ClosestMatch("colour", keys), std::nullopt);
  EXPECT_EQ(ClosestMatch("min", keys), std::nullopt);
  // Equally close: the first candidate wins.
  EXPECT_EQ(ClosestMatch("mValue", keys), "minValue");
}

}  // namespace
}  // namespace vernier::config
