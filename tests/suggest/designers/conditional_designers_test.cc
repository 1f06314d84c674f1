// Every designer over a conditional search space: suggestions carry exactly
// their active parameters, grid walks the tree, the GP models the tree.

#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "suggest/designers/designer_factory.h"
#include "suggest/designers/gp_bandit_designer.h"
#include "suggest/designers/grid_search_designer.h"
#include "suggest/designers/quasi_random_designer.h"
#include "suggest/designers/random_search_designer.h"
#include "suggest/gp/gp_input_encoder.h"
#include "tests/suggest/parameter_specs.h"

namespace vernier::suggest {
namespace {

using v1::ParameterSpec;
using v1::ParameterValue;
using namespace vernier::suggest::testing;  // NOLINT: spec builders.

std::map<std::string, ParameterValue> ByName(const ParameterAssignment& point) {
  std::map<std::string, ParameterValue> values;
  for (const ParameterValue& value : ActiveValues(point)) values[value.parameter_name()] = value;
  return values;
}

// The active set a point must have, from its own parent values.
void ExpectExactlyTheActiveParameters(const ParameterAssignment& point) {
  const std::map<std::string, ParameterValue> values = ByName(point);
  ASSERT_TRUE(values.contains("model"));
  const std::string model = values.at("model").string_value();
  std::set<std::string> expected = {"model"};
  if (model == "linear") expected.insert("l2");
  if (model == "dnn") {
    expected.insert({"layers", "optimizer"});
    if (values.contains("layers") && values.at("layers").int_value() >= 3) {
      expected.insert("dropout");
    }
    if (values.contains("optimizer") && values.at("optimizer").string_value() == "sgd") {
      expected.insert("momentum");
    }
  }
  std::set<std::string> actual;
  for (const auto& [name, value] : values) actual.insert(name);
  EXPECT_EQ(actual, expected) << FormatAssignment(point);
}

// Best 0.99: dnn, 4 layers, dropout 0.2, sgd with momentum 0.9.
double ModelFamilyObjective(const ParameterAssignment& point) {
  const std::map<std::string, ParameterValue> v = ByName(point);
  const std::string model = v.at("model").string_value();
  if (model == "linear") return 0.6 - 0.1 * std::abs(std::log10(v.at("l2").double_value()) + 3);
  if (model == "tree") return 0.3;
  const int64_t layers = v.at("layers").int_value();
  double value = 0.5 + 0.1 * static_cast<double>(layers);
  if (layers >= 3) value -= 4 * std::pow(v.at("dropout").double_value() - 0.2, 2);
  value += v.at("optimizer").string_value() == "sgd" ? 0.1 * v.at("momentum").double_value() : 0.05;
  return value;
}

TEST(ConditionalDesignersTest, GridWalksEveryDistinctAssignmentOnce) {
  absl::StatusOr<std::unique_ptr<GridSearchDesigner>> grid =
      GridSearchDesigner::Create(MustMakeSpace({FiniteModelFamily()}));
  ASSERT_TRUE(grid.ok()) << grid.status();
  EXPECT_EQ((*grid)->grid_size(), 27);
  const Suggestions suggestions = MustSuggest(**grid, DesignerHistory(), 30);
  EXPECT_EQ(suggestions.points.size(), 27u);
  EXPECT_EQ(suggestions.shortfall_reason, "the grid of 27 points is exhausted");
  std::set<std::string> keys;
  for (const ParameterAssignment& point : suggestions.points) {
    ExpectExactlyTheActiveParameters(point);
    keys.insert(SearchSpace::Key(point));
  }
  EXPECT_EQ(keys.size(), 27u);
}

TEST(ConditionalDesignersTest, RandomAndQuasiRandomSetOnlyActiveChildren) {
  const SearchSpace space = MustMakeSpace({ModelFamilySpec()});
  RandomSearchDesigner random(space);
  QuasiRandomDesigner quasi_random(space, 7);
  for (Designer* designer : std::initializer_list<Designer*>{&random, &quasi_random}) {
    const Suggestions suggestions = MustSuggest(*designer, DesignerHistory(), 300);
    ASSERT_EQ(suggestions.points.size(), 300u);
    std::set<std::string> seen;
    for (const ParameterAssignment& point : suggestions.points) {
      ExpectExactlyTheActiveParameters(point);
      for (const ParameterValue& value : ActiveValues(point)) seen.insert(value.parameter_name());
    }
    EXPECT_EQ(seen.size(), 6u);  // Every branch was visited, two levels deep too.
  }
}

TEST(ConditionalDesignersTest, RandomEnumeratesAFiniteTreeWhenNearlyFull) {
  const SearchSpace space = MustMakeSpace({FiniteModelFamily()});
  RandomSearchDesigner random(space);
  const Suggestions suggestions = MustSuggest(random, DesignerHistory(), 40);
  EXPECT_EQ(suggestions.points.size(), 27u);
  std::set<std::string> keys;
  for (const ParameterAssignment& point : suggestions.points) keys.insert(SearchSpace::Key(point));
  EXPECT_EQ(keys.size(), 27u);
}

TEST(ConditionalDesignersTest, GpEncoderPutsInactiveParametersOutsideTheirRange) {
  const SearchSpace space = MustMakeSpace({ModelFamilySpec()});
  const GpInputEncoder encoder(space);
  const ParameterAssignment linear =
      space.Decode(std::vector<double>{0.1, 0.5, 0.5, 0.5, 0.9, 0.5});
  absl::StatusOr<Eigen::VectorXd> point = encoder.Encode(linear);
  ASSERT_TRUE(point.ok()) << point.status();
  EXPECT_EQ((*point)[0], 0);                                    // linear
  EXPECT_NEAR((*point)[1], 0.5, 1e-12);                         // l2
  EXPECT_EQ((*point)[2], GpInputEncoder::kInactiveCoordinate);  // layers
  EXPECT_EQ((*point)[3], GpInputEncoder::kInactiveCoordinate);  // dropout
  EXPECT_EQ((*point)[4], 2);  // optimizer: the extra category after adam, sgd
  EXPECT_EQ((*point)[5], GpInputEncoder::kInactiveCoordinate);  // momentum
  for (int j : {2, 3, 4, 5}) EXPECT_TRUE(encoder.IsInactive(*point, j)) << j;
  EXPECT_TRUE(encoder.is_parent(0));
  EXPECT_FALSE(encoder.is_parent(1));

  // Switching the parent to dnn and snapping activates its children at the
  // middle of their ranges, and whatever an inactive coordinate held goes.
  Eigen::VectorXd dnn = *point;
  dnn[0] = 1;
  dnn[1] = 0.9;
  const Eigen::VectorXd snapped = encoder.Snap(dnn);
  EXPECT_EQ(snapped[1], GpInputEncoder::kInactiveCoordinate);
  EXPECT_FALSE(encoder.IsInactive(snapped, 2));
  EXPECT_FALSE(encoder.IsInactive(snapped, 4));
  ExpectExactlyTheActiveParameters(encoder.Decode(snapped));
  EXPECT_TRUE(encoder.Neighbours(*point, 3).empty());
}

TEST(ConditionalDesignersTest, GpModelsTheTreeWithoutFallingBack) {
  const SearchSpace space = MustMakeSpace({ModelFamilySpec()});
  GpBanditDesigner gp(space, v1::MetricSpec::MAXIMIZE, 11);
  DesignerHistory history;
  std::mt19937_64 rng(5);
  double best = -1;
  for (int trial = 0; trial < 30; ++trial) {
    absl::StatusOr<Suggestions> suggestions = gp.Suggest(history, 1, rng);
    ASSERT_TRUE(suggestions.ok()) << suggestions.status();
    ASSERT_EQ(suggestions->points.size(), 1u);
    EXPECT_EQ(suggestions->fallback_reason, "") << "trial " << trial;
    const ParameterAssignment& point = suggestions->points[0];
    ExpectExactlyTheActiveParameters(point);
    TrialObservation observation = Observation(trial + 1, point, v1::Trial::SUCCEEDED);
    observation.objective = ModelFamilyObjective(point);
    best = std::max(best, *observation.objective);
    history.completed.push_back(std::move(observation));
  }
  // The optimum is two levels down in one branch of three.
  EXPECT_GT(best, 0.95);
}

TEST(ConditionalDesignersTest, GpBatchesOnAConditionalSpaceAreDistinctAndValid) {
  const SearchSpace space = MustMakeSpace({ModelFamilySpec()});
  GpBanditDesigner gp(space, v1::MetricSpec::MAXIMIZE, 3);
  DesignerHistory history;
  const Suggestions initial = MustSuggest(gp, history, 12);
  for (size_t i = 0; i < initial.points.size(); ++i) {
    TrialObservation observation =
        Observation(static_cast<int64_t>(i) + 1, initial.points[i], v1::Trial::SUCCEEDED);
    observation.objective = ModelFamilyObjective(initial.points[i]);
    history.completed.push_back(std::move(observation));
  }
  const Suggestions batch = MustSuggest(gp, history, 5);
  ASSERT_EQ(batch.points.size(), 5u);
  EXPECT_EQ(batch.fallback_reason, "");
  std::set<std::string> keys;
  for (const ParameterAssignment& point : batch.points) {
    ExpectExactlyTheActiveParameters(point);
    keys.insert(SearchSpace::Key(point));
  }
  EXPECT_EQ(keys.size(), 5u);
}

TEST(ConditionalDesignersTest, MakeDesignerAcceptsAConditionalSpaceForEveryAlgorithm) {
  for (v1::Algorithm algorithm : {v1::GRID_SEARCH, v1::RANDOM_SEARCH, v1::QUASI_RANDOM_SEARCH,
                                  v1::GAUSSIAN_PROCESS_BANDIT, v1::ALGORITHM_UNSPECIFIED}) {
    v1::StudySpec spec;
    *spec.add_parameters() = algorithm == v1::GRID_SEARCH ? FiniteModelFamily() : ModelFamilySpec();
    spec.set_algorithm(algorithm);
    spec.set_seed(1);
    absl::StatusOr<std::unique_ptr<Designer>> designer = MakeDesigner(spec);
    ASSERT_TRUE(designer.ok()) << v1::Algorithm_Name(algorithm) << ": " << designer.status();
    const Suggestions suggestions = MustSuggest(**designer, DesignerHistory(), 4);
    ASSERT_EQ(suggestions.points.size(), 4u) << v1::Algorithm_Name(algorithm);
    for (const ParameterAssignment& point : suggestions.points) {
      ExpectExactlyTheActiveParameters(point);
    }
  }
}

}  // namespace
}  // namespace vernier::suggest
