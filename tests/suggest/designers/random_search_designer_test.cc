#include "suggest/designers/random_search_designer.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/suggest/parameter_specs.h"

namespace vernier::suggest {
namespace {

using ::testing::HasSubstr;
using v1::ParameterSpec;
using v1::ParameterValue;
using namespace vernier::suggest::testing;  // NOLINT: spec builders.

std::set<std::string> Keys(const std::vector<ParameterAssignment>& points) {
  std::set<std::string> keys;
  for (const ParameterAssignment& point : points) keys.insert(SearchSpace::Key(point));
  return keys;
}

double Median(std::vector<double> values) {
  std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
  return values[values.size() / 2];
}

TEST(RandomSearchDesignerTest, RespectsBoundsTypesAndValuesOverTenThousandSamples) {
  const SearchSpace space = MustMakeSpace(
      {DoubleSpec("lr", 1e-4, 1e-1, ParameterSpec::UNIT_LOG_SCALE), DoubleSpec("dropout", 0, 0.5),
       DoubleSpec("momentum", 0.9, 0.999, ParameterSpec::UNIT_REVERSE_LOG_SCALE),
       IntegerSpec("layers", 1, 8), IntegerSpec("units", 16, 1024, ParameterSpec::UNIT_LOG_SCALE),
       CategoricalSpec("optimizer", {"adam", "sgd", "rmsprop"}),
       DiscreteSpec("batch", {16, 32, 64, 128})});
  RandomSearchDesigner designer(space);
  std::mt19937_64 rng(42);
  const Suggestions suggestions = MustSuggest(designer, {}, 10000, rng);
  ASSERT_EQ(suggestions.points.size(), 10000u);
  EXPECT_EQ(suggestions.shortfall_reason, "");

  std::map<std::string, int> optimizers;
  std::map<double, int> batches;
  std::set<int64_t> layers;
  for (const ParameterAssignment& point : suggestions.points) {
    // Encode checks each value's type, bounds and membership.
    ASSERT_TRUE(space.Encode(point).ok()) << space.Encode(point).status();
    EXPECT_EQ(point[0].parameter_name(), "lr");
    EXPECT_GE(point[0].double_value(), 1e-4);
    EXPECT_LE(point[0].double_value(), 1e-1);
    EXPECT_GE(point[2].double_value(), 0.9);
    EXPECT_LE(point[2].double_value(), 0.999);
    ASSERT_EQ(point[3].value_case(), ParameterValue::kIntValue);
    layers.insert(point[3].int_value());
    ++optimizers[point[5].string_value()];
    ++batches[point[6].double_value()];
  }
  EXPECT_EQ(layers.size(), 8u);
  ASSERT_EQ(optimizers.size(), 3u);
  for (const auto& [name, count] : optimizers) EXPECT_NEAR(count, 10000 / 3, 250) << name;
  EXPECT_EQ(batches.size(), 4u);
}

TEST(RandomSearchDesignerTest, ScalesShapeTheDistribution) {
  const SearchSpace space = MustMakeSpace(
      {DoubleSpec("lr", 1e-4, 1e-1, ParameterSpec::UNIT_LOG_SCALE), DoubleSpec("dropout", 0, 0.5),
       DoubleSpec("momentum", 1, 1000, ParameterSpec::UNIT_REVERSE_LOG_SCALE)});
  RandomSearchDesigner designer(space);
  std::mt19937_64 rng(1);
  const Suggestions suggestions = MustSuggest(designer, {}, 10000, rng);
  std::vector<double> lr;
  std::vector<double> dropout;
  int momentum_upper_half = 0;
  for (const ParameterAssignment& point : suggestions.points) {
    lr.push_back(point[0].double_value());
    dropout.push_back(point[1].double_value());
    if (point[2].double_value() > 500.5) ++momentum_upper_half;
  }
  // Log-uniform: the median is the geometric mean sqrt(1e-4 * 1e-1) ~ 0.00316
  // (one standard error ~3.5%); uniform sampling would give ~0.05.
  EXPECT_NEAR(Median(lr) / std::sqrt(1e-4 * 1e-1), 1.0, 0.15);
  EXPECT_NEAR(Median(dropout), 0.25, 0.02);
  // Reverse log puts ~90% of the mass in the upper half of [1, 1000].
  EXPECT_NEAR(momentum_upper_half / 10000.0, 0.8998, 0.015);
}

TEST(RandomSearchDesignerTest, NeverRepeatsAPointOfTheHistoryOrTheBatch) {
  const SearchSpace space =
      MustMakeSpace({IntegerSpec("layers", 1, 20), CategoricalSpec("optimizer", {"adam", "sgd"})});
  RandomSearchDesigner designer(space);
  std::mt19937_64 rng(9);
  DesignerHistory history;
  history.completed.push_back(Observation(
      1, {IntValue("layers", 1), StringValue("optimizer", "adam")}, v1::Trial::SUCCEEDED));
  history.pending.push_back(
      Observation(2, {IntValue("layers", 2), StringValue("optimizer", "sgd")}, v1::Trial::ACTIVE));
  const Suggestions suggestions = MustSuggest(designer, history, 30, rng);
  ASSERT_EQ(suggestions.points.size(), 30u);
  const std::set<std::string> keys = Keys(suggestions.points);
  EXPECT_EQ(keys.size(), 30u);
  EXPECT_FALSE(keys.contains(SearchSpace::Key(history.completed[0].parameters)));
  EXPECT_FALSE(keys.contains(SearchSpace::Key(history.pending[0].parameters)));
}

TEST(RandomSearchDesignerTest, TheSameSeedGivesTheSameSuggestions) {
  const SearchSpace space =
      MustMakeSpace({DoubleSpec("lr", 1e-4, 1e-1, ParameterSpec::UNIT_LOG_SCALE),
                     IntegerSpec("layers", 1, 8), CategoricalSpec("optimizer", {"adam", "sgd"})});
  RandomSearchDesigner first(space);
  RandomSearchDesigner second(space);
  std::mt19937_64 rng_a(123);
  std::mt19937_64 rng_b(123);
  std::mt19937_64 rng_c(124);
  const Suggestions a = MustSuggest(first, {}, 20, rng_a);
  const Suggestions b = MustSuggest(second, {}, 20, rng_b);
  const Suggestions c = MustSuggest(first, {}, 20, rng_c);
  ASSERT_EQ(a.points.size(), 20u);
  for (size_t i = 0; i < a.points.size(); ++i) {
    EXPECT_EQ(SearchSpace::Key(a.points[i]), SearchSpace::Key(b.points[i])) << i;
  }
  EXPECT_NE(SearchSpace::Key(a.points[0]), SearchSpace::Key(c.points[0]));
}

TEST(RandomSearchDesignerTest, FillsAFiniteSpaceAcrossCallsThenReportsExhaustion) {
  const SearchSpace space =
      MustMakeSpace({IntegerSpec("layers", 1, 3), DiscreteSpec("batch", {16, 32}),
                     CategoricalSpec("optimizer", {"adam", "sgd"})});
  RandomSearchDesigner designer(space);
  std::mt19937_64 rng(5);
  DesignerHistory history;
  std::set<std::string> seen;
  for (int call = 0; call < 2; ++call) {
    const Suggestions suggestions = MustSuggest(designer, history, 5, rng);
    ASSERT_EQ(suggestions.points.size(), 5u) << suggestions.shortfall_reason;
    EXPECT_EQ(suggestions.shortfall_reason, "");
    for (const ParameterAssignment& point : suggestions.points) {
      EXPECT_TRUE(seen.insert(SearchSpace::Key(point)).second) << FormatAssignment(point);
      history.completed.push_back(Observation(seen.size(), point, v1::Trial::SUCCEEDED));
    }
  }
  // Two of the twelve points are left.
  const Suggestions last = MustSuggest(designer, history, 5, rng);
  ASSERT_EQ(last.points.size(), 2u);
  for (const ParameterAssignment& point : last.points) {
    EXPECT_TRUE(seen.insert(SearchSpace::Key(point)).second) << FormatAssignment(point);
    history.pending.push_back(Observation(seen.size(), point, v1::Trial::ACTIVE));
  }
  EXPECT_EQ(seen.size(), 12u);
  EXPECT_EQ(last.shortfall_reason,
            "all 12 points of the search space are already in the study's trials");

  const Suggestions none = MustSuggest(designer, history, 1, rng);
  EXPECT_TRUE(none.points.empty());
  EXPECT_THAT(none.shortfall_reason, HasSubstr("all 12 points"));
}

TEST(RandomSearchDesignerTest, GivesUpOnASpaceTooLargeToEnumerateWhenDrawsKeepColliding) {
  // 100,000 points, more than the designer enumerates, every one taken.
  const SearchSpace space = MustMakeSpace({IntegerSpec("seed", 1, 100000)});
  RandomSearchDesigner designer(space);
  DesignerHistory history;
  for (int64_t seed = 1; seed <= 100000; ++seed) {
    history.completed.push_back(Observation(seed, {IntValue("seed", seed)}, v1::Trial::FAILED));
  }
  std::mt19937_64 rng(5);
  const Suggestions suggestions = MustSuggest(designer, history, 2, rng);
  EXPECT_TRUE(suggestions.points.empty());
  EXPECT_EQ(suggestions.shortfall_reason, "no unused point found in 1000 random draws");
}

TEST(RandomSearchDesignerTest, ZeroPointsAskedIsNotAShortfall) {
  RandomSearchDesigner designer(MustMakeSpace({IntegerSpec("layers", 1, 3)}));
  std::mt19937_64 rng(5);
  const Suggestions suggestions = MustSuggest(designer, {}, 0, rng);
  EXPECT_TRUE(suggestions.points.empty());
  EXPECT_EQ(suggestions.shortfall_reason, "");
}

TEST(RandomSearchDesignerTest, RejectsANegativeCount) {
  RandomSearchDesigner designer(MustMakeSpace({IntegerSpec("layers", 1, 3)}));
  std::mt19937_64 rng(5);
  absl::StatusOr<Suggestions> suggestions = designer.Suggest({}, -1, rng);
  ASSERT_FALSE(suggestions.ok());
  EXPECT_EQ(suggestions.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(suggestions.status().message()),
              HasSubstr("count must not be negative, got -1"));
}

}  // namespace
}  // namespace vernier::suggest
