#include "http/change_tracker.h"

#include <gtest/gtest.h>

#include "vernier/v1/job.pb.h"
#include "vernier/v1/study.pb.h"

namespace vernier::http {
namespace {

TEST(ChangeTrackerTest, ANewOrChangedMessageIsAChangeAndAnEqualOneIsNot) {
  ChangeTracker seen;
  v1::Trial trial;
  trial.set_id(1);
  trial.set_state(v1::Trial::ACTIVE);
  EXPECT_TRUE(seen.Changed("1", trial));
  EXPECT_FALSE(seen.Changed("1", trial));
  trial.set_measurement_count(1);
  EXPECT_TRUE(seen.Changed("1", trial));
  EXPECT_FALSE(seen.Changed("1", trial));
  EXPECT_TRUE(seen.Changed("2", trial));
  EXPECT_EQ(seen.size(), 2u);
}

TEST(ChangeTrackerTest, MapsInADifferentOrderAreTheSame) {
  ChangeTracker seen;
  v1::HyperparameterOutput first;
  (*first.mutable_hyperparameters())["a"] = "1";
  (*first.mutable_hyperparameters())["b"] = "2";
  v1::HyperparameterOutput second;
  (*second.mutable_hyperparameters())["b"] = "2";
  (*second.mutable_hyperparameters())["a"] = "1";
  EXPECT_TRUE(seen.Changed("t", first));
  EXPECT_FALSE(seen.Changed("t", second));
}

}  // namespace
}  // namespace vernier::http
