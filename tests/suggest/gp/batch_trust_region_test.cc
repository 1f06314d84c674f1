#include "suggest/gp/batch_trust_region.h"

#include <vector>

#include "gtest/gtest.h"

namespace vernier::suggest {
namespace {

// `initial` values of the initial design (the best of them 0), then one
// batch of `batch` per entry of `outcomes`: true for a batch that beats
// every value before it, false for one that ties the best.
std::vector<double> History(int initial, int batch, const std::vector<bool>& outcomes) {
  std::vector<double> values;
  for (int i = 0; i < initial; ++i) values.push_back(-static_cast<double>(i));
  double best = 0;
  for (bool success : outcomes) {
    if (success) best += 1;
    for (int i = 0; i < batch; ++i) values.push_back(i == 0 ? best : best - 5);
  }
  return values;
}

TEST(BatchTrustRegionTest, OneUntilAWholeBatchHasEndedAfterTheInitialDesign) {
  const BatchTrustRegion region;
  EXPECT_EQ(region.Length({}, 10, 4, 8), 1);
  // 10 initial trials are 12 in batches of 4: the first judged batch is
  // trials 13 to 16.
  std::vector<double> values = History(12, 4, {});
  values.push_back(-100);
  values.push_back(-100);
  values.push_back(-100);
  EXPECT_EQ(region.Length(values, 10, 4, 8), 1);
  // One point at a time has no batches.
  EXPECT_EQ(region.Length(History(10, 1, {false, false, false}), 10, 1, 8), 1);
}

TEST(BatchTrustRegionTest, HalvesAfterEnoughFailuresInARowAndStartsAgainWhenTooSmall) {
  const BatchTrustRegion region;
  // d = 8, batches of 4: ceil(8 / 4) = 2 failures halve it.
  EXPECT_EQ(region.Length(History(12, 4, {false}), 10, 4, 8), 1);
  EXPECT_EQ(region.Length(History(12, 4, {false, false}), 10, 4, 8), 0.5);
  EXPECT_EQ(region.Length(History(12, 4, {false, false, false, false}), 10, 4, 8), 0.25);
  // A success in between resets the count of failures.
  EXPECT_EQ(region.Length(History(12, 4, {false, true, false}), 10, 4, 8), 1);
  // d = 2, batches of 4: ceil(max(4, 2) / 4) = 1 failure halves it.
  EXPECT_EQ(region.Length(History(12, 4, {false}), 10, 4, 2), 0.5);
  // Five halvings reach 1/32; the sixth goes below it and starts again.
  EXPECT_EQ(region.Length(History(12, 4, std::vector<bool>(5, false)), 10, 4, 2), 1.0 / 32);
  EXPECT_EQ(region.Length(History(12, 4, std::vector<bool>(6, false)), 10, 4, 2), 1);
  // d = 20, batches of 2: 10 failures halve it.
  EXPECT_EQ(region.Length(History(10, 2, std::vector<bool>(9, false)), 10, 2, 20), 1);
  EXPECT_EQ(region.Length(History(10, 2, std::vector<bool>(10, false)), 10, 2, 20), 0.5);
}

TEST(BatchTrustRegionTest, DoublesAfterThreeSuccessesInARowUpToTwice) {
  const BatchTrustRegion region;
  EXPECT_EQ(region.Length(History(12, 4, {true, true}), 10, 4, 8), 1);
  EXPECT_EQ(region.Length(History(12, 4, {true, true, true}), 10, 4, 8), 2);
  EXPECT_EQ(region.Length(History(12, 4, std::vector<bool>(9, true)), 10, 4, 8), 2);
  // Shrunk, then grown again.
  EXPECT_EQ(region.Length(History(12, 4, {false, false, true, true, true}), 10, 4, 8), 1);
}

TEST(BatchTrustRegionTest, ATieOrATinyGainIsAFailure) {
  const BatchTrustRegion region;
  std::vector<double> values = History(12, 4, {});
  // The best so far is 0; then 10: a batch that beats it by 10^-4 of it
  // fails, one that beats it by 10^-2 of it succeeds.
  values[0] = 10;
  std::vector<double> tiny = values;
  for (int batch = 0; batch < 2; ++batch) {
    for (int i = 0; i < 4; ++i) tiny.push_back(i == 0 ? 10 * (1 + 1e-4 * (batch + 1)) : 0);
  }
  EXPECT_EQ(region.Length(tiny, 10, 4, 8), 0.5);
  std::vector<double> real = values;
  for (int batch = 0; batch < 3; ++batch) {
    for (int i = 0; i < 4; ++i) real.push_back(i == 3 ? 10 * (1 + 1e-2 * (batch + 1)) : 0);
  }
  EXPECT_EQ(region.Length(real, 10, 4, 8), 2);
}

TEST(BatchTrustRegionTest, ATrialAfterTheLastWholeBatchIsNotJudged) {
  const BatchTrustRegion region;
  std::vector<double> values = History(12, 4, {false});
  // Three trials of the next batch have ended, all worse: no second failure
  // yet.
  for (int i = 0; i < 3; ++i) values.push_back(-10);
  EXPECT_EQ(region.Length(values, 10, 4, 8), 1);
}

}  // namespace
}  // namespace vernier::suggest
