#include "trainer-agent/backoff.h"

#include <gtest/gtest.h>

#include <random>

namespace vernier::agent {
namespace {

TEST(BackoffTest, DoublesUpToTheMaximumWithJitterInTheUpperHalf) {
  std::mt19937_64 rng(42);
  Backoff backoff(absl::Milliseconds(100), absl::Seconds(5), rng);
  absl::Duration base = absl::Milliseconds(100);
  for (int attempt = 0; attempt < 12; ++attempt) {
    const absl::Duration delay = backoff.Next();
    EXPECT_GE(delay, base / 2) << "attempt " << attempt;
    EXPECT_LE(delay, base) << "attempt " << attempt;
    base = std::min(base * 2, absl::Seconds(5));
  }
  EXPECT_EQ(backoff.base(), absl::Seconds(5));
  backoff.Reset();
  EXPECT_EQ(backoff.base(), absl::Milliseconds(100));
  EXPECT_LE(backoff.Next(), absl::Milliseconds(100));
}

TEST(BackoffTest, JitterDependsOnTheSeedOnly) {
  std::mt19937_64 first_rng(1), same_rng(1), other_rng(2);
  Backoff first(absl::Milliseconds(100), absl::Seconds(5), first_rng);
  Backoff same(absl::Milliseconds(100), absl::Seconds(5), same_rng);
  Backoff other(absl::Milliseconds(100), absl::Seconds(5), other_rng);
  bool differs = false;
  for (int i = 0; i < 5; ++i) {
    const absl::Duration delay = first.Next();
    EXPECT_EQ(delay, same.Next());
    differs |= delay != other.Next();
  }
  EXPECT_TRUE(differs);
}

}  // namespace
}  // namespace vernier::agent
