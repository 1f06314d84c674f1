#include "suggest/designers/quasi_random_designer.h"

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
using namespace vernier::suggest::testing;  // NOLINT: spec builders.

SearchSpace MixedSpace() {
  absl::StatusOr<SearchSpace> space = MakeSpace(
      {DoubleSpec("lr", 1e-4, 1e-1, ParameterSpec::UNIT_LOG_SCALE), IntegerSpec("layers", 1, 8),
       CategoricalSpec("optimizer", {"adam", "sgd", "rmsprop"}),
       DiscreteSpec("batch", {16, 32, 64, 128})});
  EXPECT_TRUE(space.ok()) << space.status();
  return *std::move(space);
}

TEST(QuasiRandomDesignerTest, PointsAreValidAndDistinct) {
  const SearchSpace space = MixedSpace();
  QuasiRandomDesigner designer(space, 3);
  const Suggestions suggestions = MustSuggest(designer, {}, 200);
  ASSERT_EQ(suggestions.points.size(), 200u);
  std::set<std::string> keys;
  for (const ParameterAssignment& point : suggestions.points) {
    ASSERT_TRUE(space.Encode(point).ok()) << space.Encode(point).status();
    EXPECT_TRUE(keys.insert(SearchSpace::Key(point)).second) << FormatAssignment(point);
  }
}

TEST(QuasiRandomDesignerTest, ContinuesTheSequenceAcrossCalls) {
  const SearchSpace space = MixedSpace();
  QuasiRandomDesigner designer(space, 3);
  const Suggestions all_at_once = MustSuggest(designer, {}, 10);
  DesignerHistory history;
  const Suggestions first = MustSuggest(designer, history, 4, /*seed=*/10);
  for (const ParameterAssignment& point : first.points) {
    history.completed.push_back(Observation(1, point, v1::Trial::SUCCEEDED));
  }
  history.pending.push_back(Observation(5, all_at_once.points[4], v1::Trial::ACTIVE));
  const Suggestions rest = MustSuggest(designer, history, 5, /*seed=*/20);
  ASSERT_EQ(first.points.size(), 4u);
  ASSERT_EQ(rest.points.size(), 5u);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(SearchSpace::Key(first.points[i]), SearchSpace::Key(all_at_once.points[i]));
  }
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(SearchSpace::Key(rest.points[i]), SearchSpace::Key(all_at_once.points[5 + i]));
  }
}

TEST(QuasiRandomDesignerTest, TheStudySeedChoosesTheSequence) {
  const SearchSpace space = MixedSpace();
  QuasiRandomDesigner a(space, 3);
  QuasiRandomDesigner b(space, 3);
  QuasiRandomDesigner c(space, 4);
  const Suggestions from_a = MustSuggest(a, {}, 5, 1);
  const Suggestions from_b = MustSuggest(b, {}, 5, 2);
  const Suggestions from_c = MustSuggest(c, {}, 5, 1);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(SearchSpace::Key(from_a.points[i]), SearchSpace::Key(from_b.points[i]));
  }
  EXPECT_NE(SearchSpace::Key(from_a.points[0]), SearchSpace::Key(from_c.points[0]));
}

TEST(QuasiRandomDesignerTest, SpreadsAnIntegerEvenly) {
  absl::StatusOr<SearchSpace> space = MakeSpace({IntegerSpec("units", 1, 16)});
  ASSERT_TRUE(space.ok());
  QuasiRandomDesigner designer(*space, 9);
  const Suggestions suggestions = MustSuggest(designer, {}, 16);
  std::set<int64_t> values;
  for (const ParameterAssignment& point : suggestions.points) values.insert(point[0].int_value());
  // Base 2 stratifies: 16 consecutive points take each of 16 values once.
  EXPECT_EQ(values.size(), 16u);
}

TEST(QuasiRandomDesignerTest, FillsAFiniteSpaceThenReportsExhaustion) {
  absl::StatusOr<SearchSpace> space =
      MakeSpace({IntegerSpec("layers", 1, 3), CategoricalSpec("optimizer", {"adam", "sgd"})});
  ASSERT_TRUE(space.ok());
  QuasiRandomDesigner designer(*space, 1);
  DesignerHistory history;
  history.completed.push_back(Observation(
      1, {IntValue("layers", 2), StringValue("optimizer", "sgd")}, v1::Trial::SUCCEEDED));
  const Suggestions suggestions = MustSuggest(designer, history, 8);
  ASSERT_EQ(suggestions.points.size(), 5u);
  std::set<std::string> keys = {SearchSpace::Key(history.completed[0].parameters)};
  for (const ParameterAssignment& point : suggestions.points) {
    EXPECT_TRUE(keys.insert(SearchSpace::Key(point)).second);
  }
  EXPECT_THAT(suggestions.shortfall_reason, HasSubstr("all 6 points"));
}

TEST(QuasiRandomDesignerTest, RejectsANegativeCount) {
  QuasiRandomDesigner designer(MixedSpace(), 1);
  std::mt19937_64 rng(1);
  EXPECT_EQ(designer.Suggest({}, -2, rng).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace vernier::suggest
