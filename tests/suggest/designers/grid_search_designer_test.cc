#include "suggest/designers/grid_search_designer.h"

#include <chrono>
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
using namespace vernier::suggest::testing;  // NOLINT: spec builders.

std::unique_ptr<GridSearchDesigner> MustMakeGrid(const std::vector<ParameterSpec>& specs) {
  absl::StatusOr<std::unique_ptr<GridSearchDesigner>> grid =
      GridSearchDesigner::Create(MustMakeSpace(specs));
  EXPECT_TRUE(grid.ok()) << grid.status();
  return grid.ok() ? *std::move(grid) : nullptr;
}

// A grid of integers 0..radix-1 per parameter.
std::vector<ParameterSpec> IntegerGrid(const std::vector<int>& radices) {
  std::vector<ParameterSpec> specs;
  for (size_t i = 0; i < radices.size(); ++i) {
    ParameterSpec spec = IntegerSpec("p" + std::to_string(i), 0, radices[i] - 1);
    if (radices[i] == 1) spec = DiscreteSpec("p" + std::to_string(i), {0});
    specs.push_back(spec);
  }
  return specs;
}

int64_t ValueIndex(const v1::ParameterValue& value) {
  return value.has_int_value() ? value.int_value() : static_cast<int64_t>(value.double_value());
}

// How many leading points of the order it takes to see every value of every
// parameter.
int64_t PrefixCoveringAllValues(const GridSearchDesigner& grid, const std::vector<int>& radices) {
  std::vector<std::set<int64_t>> seen(radices.size());
  for (int64_t position = 0; position < grid.grid_size(); ++position) {
    const ParameterAssignment point = grid.PointAt(position);
    bool all = true;
    for (size_t i = 0; i < radices.size(); ++i) {
      seen[i].insert(ValueIndex(point[i]));
      all = all && static_cast<int>(seen[i].size()) == radices[i];
    }
    if (all) return position + 1;
  }
  return grid.grid_size() + 1;
}

TEST(GridSearchDesignerTest, SuggestsEveryPointExactlyOnceAcrossCalls) {
  const std::vector<ParameterSpec> specs = {
      IntegerSpec("layers", 1, 3), DiscreteSpec("batch", {16, 32}),
      CategoricalSpec("optimizer", {"adam", "sgd", "rmsprop", "adagrad"})};
  const SearchSpace space = MustMakeSpace(specs);
  std::unique_ptr<GridSearchDesigner> grid = MustMakeGrid(specs);
  ASSERT_NE(grid, nullptr);
  EXPECT_EQ(grid->grid_size(), 24);

  std::set<std::string> expected;
  for (int64_t layers = 1; layers <= 3; ++layers) {
    for (double batch : {16.0, 32.0}) {
      for (const char* optimizer : {"adam", "sgd", "rmsprop", "adagrad"}) {
        expected.insert(SearchSpace::Key({IntValue("layers", layers), DoubleValue("batch", batch),
                                          StringValue("optimizer", optimizer)}));
      }
    }
  }

  std::mt19937_64 rng(1);
  DesignerHistory history;
  std::set<std::string> seen;
  for (int call = 0; call < 4; ++call) {
    const Suggestions suggestions = MustSuggest(*grid, history, 5, rng);
    ASSERT_EQ(suggestions.points.size(), 5u);
    EXPECT_EQ(suggestions.shortfall_reason, "");
    for (const ParameterAssignment& point : suggestions.points) {
      ASSERT_TRUE(space.Encode(point).ok()) << space.Encode(point).status();
      EXPECT_TRUE(seen.insert(SearchSpace::Key(point)).second) << FormatAssignment(point);
      // Alternate between ended and running trials: both count as used.
      auto& trials = seen.size() % 2 == 0 ? history.completed : history.pending;
      trials.push_back(Observation(
          seen.size(), point, seen.size() % 2 == 0 ? v1::Trial::SUCCEEDED : v1::Trial::ACTIVE));
    }
  }
  const Suggestions last = MustSuggest(*grid, history, 5, rng);
  ASSERT_EQ(last.points.size(), 4u);
  for (const ParameterAssignment& point : last.points) {
    EXPECT_TRUE(seen.insert(SearchSpace::Key(point)).second) << FormatAssignment(point);
    history.completed.push_back(Observation(seen.size(), point, v1::Trial::SUCCEEDED));
  }
  EXPECT_EQ(last.shortfall_reason, "the grid of 24 points is exhausted");
  EXPECT_EQ(seen, expected);

  const Suggestions none = MustSuggest(*grid, history, 3, rng);
  EXPECT_TRUE(none.points.empty());
  EXPECT_EQ(none.shortfall_reason, "the grid of 24 points is exhausted");
}

TEST(GridSearchDesignerTest, RejectsADoubleParameter) {
  absl::StatusOr<std::unique_ptr<GridSearchDesigner>> grid = GridSearchDesigner::Create(
      MustMakeSpace({IntegerSpec("layers", 1, 3), DoubleSpec("lr", 1e-4, 1e-1)}));
  ASSERT_FALSE(grid.ok());
  EXPECT_EQ(grid.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(grid.status().message(),
            "GRID_SEARCH cannot enumerate DOUBLE parameter \"lr\"; use DISCRETE values or another "
            "algorithm");
}

TEST(GridSearchDesignerTest, RejectsAGridLargerThanInt64) {
  absl::StatusOr<std::unique_ptr<GridSearchDesigner>> grid = GridSearchDesigner::Create(
      MustMakeSpace({IntegerSpec("a", 0, 4294967296.0), IntegerSpec("b", 0, 4294967296.0)}));
  ASSERT_FALSE(grid.ok());
  EXPECT_EQ(grid.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(
      std::string(grid.status().message()),
      HasSubstr("GRID_SEARCH: the grid has more than 2^63 - 1 points (at parameter \"b\")"));
}

TEST(GridSearchDesignerTest, TheFirstHalfOfA4x4x4GridCoversEveryValue) {
  const std::vector<int> radices = {4, 4, 4};
  std::unique_ptr<GridSearchDesigner> grid = MustMakeGrid(IntegerGrid(radices));
  ASSERT_NE(grid, nullptr);
  std::mt19937_64 rng(1);
  const Suggestions first_half = MustSuggest(*grid, {}, 32, rng);
  ASSERT_EQ(first_half.points.size(), 32u);
  std::vector<std::map<int64_t, int>> counts(3);
  for (const ParameterAssignment& point : first_half.points) {
    for (int i = 0; i < 3; ++i) ++counts[i][point[i].int_value()];
  }
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(counts[i].size(), 4u) << "parameter " << i;
    // Even coverage: 8 of each value, give or take a few.
    for (const auto& [value, count] : counts[i]) {
      EXPECT_NEAR(count, 8, 3) << "parameter " << i << " value " << value;
    }
  }
  // Even the first 8 points see every value of every parameter; a
  // lexicographic order would still be on p1 = 0 and p2 = 0.
  std::vector<std::set<int64_t>> first_eight(3);
  for (int j = 0; j < 8; ++j) {
    for (int i = 0; i < 3; ++i) first_eight[i].insert(first_half.points[j][i].int_value());
  }
  for (int i = 0; i < 3; ++i) EXPECT_EQ(first_eight[i].size(), 4u) << "parameter " << i;
}

TEST(GridSearchDesignerTest, ConsecutivePointsDifferInMostCoordinates) {
  const std::vector<int> radices = {4, 4, 4};
  std::unique_ptr<GridSearchDesigner> grid = MustMakeGrid(IntegerGrid(radices));
  ASSERT_NE(grid, nullptr);
  int differing = 0;
  for (int64_t position = 1; position < grid->grid_size(); ++position) {
    const ParameterAssignment previous = grid->PointAt(position - 1);
    const ParameterAssignment current = grid->PointAt(position);
    for (int i = 0; i < 3; ++i) differing += previous[i].int_value() != current[i].int_value();
  }
  // 63 transitions of 3 coordinates; lexicographic order changes ~1.3 each.
  EXPECT_GE(differing, 63 * 5 / 2);
}

TEST(GridSearchDesignerTest, EarlyPrefixesCoverEveryValueForManyShapes) {
  for (const std::vector<int>& radices : std::vector<std::vector<int>>{{2, 2},
                                                                       {2, 9},
                                                                       {9, 2},
                                                                       {3, 5, 7},
                                                                       {2, 2, 2, 2, 2},
                                                                       {10, 10, 10},
                                                                       {2, 3, 4},
                                                                       {6, 6},
                                                                       {1, 5, 3},
                                                                       {16, 15},
                                                                       {19, 3, 9},
                                                                       {8, 7},
                                                                       {2, 2, 10}}) {
    std::unique_ptr<GridSearchDesigner> grid = MustMakeGrid(IntegerGrid(radices));
    ASSERT_NE(grid, nullptr);
    EXPECT_LE(PrefixCoveringAllValues(*grid, radices), (grid->grid_size() + 1) / 2)
        << ::testing::PrintToString(radices);
  }
}

TEST(GridSearchDesignerTest, TheOrderIsAPermutationOfTheGrid) {
  for (const std::vector<int>& radices :
       std::vector<std::vector<int>>{{1}, {2}, {7}, {4, 4, 4}, {3, 5, 7}, {12, 10}, {1, 1}}) {
    std::unique_ptr<GridSearchDesigner> grid = MustMakeGrid(IntegerGrid(radices));
    ASSERT_NE(grid, nullptr);
    std::set<std::string> keys;
    for (int64_t position = 0; position < grid->grid_size(); ++position) {
      keys.insert(SearchSpace::Key(grid->PointAt(position)));
    }
    EXPECT_EQ(static_cast<int64_t>(keys.size()), grid->grid_size())
        << ::testing::PrintToString(radices);
  }
}

TEST(GridSearchDesignerTest, SkipsPendingAndCompletedPoints) {
  std::unique_ptr<GridSearchDesigner> grid = MustMakeGrid(IntegerGrid({4, 4, 4}));
  ASSERT_NE(grid, nullptr);
  DesignerHistory history;
  history.pending.push_back(Observation(1, grid->PointAt(0), v1::Trial::REQUESTED));
  history.pending.push_back(Observation(2, grid->PointAt(2), v1::Trial::ACTIVE));
  history.completed.push_back(Observation(3, grid->PointAt(1), v1::Trial::INFEASIBLE));
  std::mt19937_64 rng(1);
  const Suggestions suggestions = MustSuggest(*grid, history, 2, rng);
  ASSERT_EQ(suggestions.points.size(), 2u);
  EXPECT_EQ(SearchSpace::Key(suggestions.points[0]), SearchSpace::Key(grid->PointAt(3)));
  EXPECT_EQ(SearchSpace::Key(suggestions.points[1]), SearchSpace::Key(grid->PointAt(4)));
}

TEST(GridSearchDesignerTest, IsDeterministicWhateverTheRng) {
  std::unique_ptr<GridSearchDesigner> first = MustMakeGrid(IntegerGrid({3, 5, 7}));
  std::unique_ptr<GridSearchDesigner> second = MustMakeGrid(IntegerGrid({3, 5, 7}));
  std::mt19937_64 rng_a(1);
  std::mt19937_64 rng_b(99);
  const Suggestions a = MustSuggest(*first, {}, 20, rng_a);
  const Suggestions b = MustSuggest(*second, {}, 20, rng_b);
  ASSERT_EQ(a.points.size(), 20u);
  ASSERT_EQ(b.points.size(), 20u);
  for (size_t i = 0; i < a.points.size(); ++i) {
    EXPECT_EQ(SearchSpace::Key(a.points[i]), SearchSpace::Key(b.points[i])) << i;
  }
}

TEST(GridSearchDesignerTest, WalksAHugeGridWithoutMaterialisingIt) {
  // 10^12 points.
  std::unique_ptr<GridSearchDesigner> grid =
      MustMakeGrid({IntegerSpec("a", 0, 999999), IntegerSpec("b", 0, 999999)});
  ASSERT_NE(grid, nullptr);
  EXPECT_EQ(grid->grid_size(), 1000000000000);
  DesignerHistory history;
  for (int64_t position = 0; position < 50; ++position) {
    history.completed.push_back(
        Observation(position + 1, grid->PointAt(position), v1::Trial::SUCCEEDED));
  }
  std::mt19937_64 rng(1);
  const Suggestions suggestions = MustSuggest(*grid, history, 100, rng);
  ASSERT_EQ(suggestions.points.size(), 100u);
  std::set<std::string> keys;
  for (const ParameterAssignment& point : suggestions.points) keys.insert(SearchSpace::Key(point));
  for (const TrialObservation& trial : history.completed) {
    EXPECT_FALSE(keys.contains(SearchSpace::Key(trial.parameters)));
  }
  EXPECT_EQ(keys.size(), 100u);
  const ParameterAssignment last = grid->PointAt(grid->grid_size() - 1);
  EXPECT_GE(last[0].int_value(), 0);
  EXPECT_LE(last[0].int_value(), 999999);
}

TEST(GridSearchDesignerTest, RejectsANegativeCount) {
  std::unique_ptr<GridSearchDesigner> grid = MustMakeGrid(IntegerGrid({2, 2}));
  ASSERT_NE(grid, nullptr);
  std::mt19937_64 rng(1);
  absl::StatusOr<Suggestions> suggestions = grid->Suggest({}, -3, rng);
  ASSERT_FALSE(suggestions.ok());
  EXPECT_EQ(suggestions.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(suggestions.status().message()),
              HasSubstr("count must not be negative, got -3"));
}

}  // namespace
}  // namespace vernier::suggest
