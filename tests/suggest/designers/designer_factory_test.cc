#include "suggest/designers/designer_factory.h"

#include <random>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "suggest/designers/gp_bandit_designer.h"
#include "suggest/designers/grid_search_designer.h"
#include "suggest/designers/quasi_random_designer.h"
#include "suggest/designers/random_search_designer.h"
#include "tests/suggest/parameter_specs.h"

namespace vernier::suggest {
namespace {

using ::testing::HasSubstr;
using namespace vernier::suggest::testing;  // NOLINT: spec builders.

v1::StudySpec Spec(v1::Algorithm algorithm) {
  v1::StudySpec spec;
  *spec.add_parameters() = IntegerSpec("layers", 1, 4);
  *spec.add_parameters() = CategoricalSpec("optimizer", {"adam", "sgd"});
  spec.set_algorithm(algorithm);
  return spec;
}

TEST(DesignerFactoryTest, GridSearchMakesAGridDesigner) {
  absl::StatusOr<std::unique_ptr<Designer>> designer = MakeDesigner(Spec(v1::GRID_SEARCH));
  ASSERT_TRUE(designer.ok()) << designer.status();
  EXPECT_NE(dynamic_cast<GridSearchDesigner*>(designer->get()), nullptr);
  std::mt19937_64 rng(1);
  absl::StatusOr<Suggestions> suggestions = (*designer)->Suggest({}, 10, rng);
  ASSERT_TRUE(suggestions.ok()) << suggestions.status();
  EXPECT_EQ(suggestions->points.size(), 8u);
  EXPECT_EQ(suggestions->shortfall_reason, "the grid of 8 points is exhausted");
}

TEST(DesignerFactoryTest, RandomSearchMakesARandomDesigner) {
  absl::StatusOr<std::unique_ptr<Designer>> designer = MakeDesigner(Spec(v1::RANDOM_SEARCH));
  ASSERT_TRUE(designer.ok()) << designer.status();
  EXPECT_NE(dynamic_cast<RandomSearchDesigner*>(designer->get()), nullptr);
}

TEST(DesignerFactoryTest, QuasiRandomSearchMakesAQuasiRandomDesigner) {
  absl::StatusOr<std::unique_ptr<Designer>> designer = MakeDesigner(Spec(v1::QUASI_RANDOM_SEARCH));
  ASSERT_TRUE(designer.ok()) << designer.status();
  EXPECT_NE(dynamic_cast<QuasiRandomDesigner*>(designer->get()), nullptr);
}

TEST(DesignerFactoryTest, GaussianProcessBanditAndUnspecifiedMakeTheGpDesigner) {
  for (v1::Algorithm algorithm : {v1::GAUSSIAN_PROCESS_BANDIT, v1::ALGORITHM_UNSPECIFIED}) {
    absl::StatusOr<std::unique_ptr<Designer>> designer = MakeDesigner(Spec(algorithm));
    ASSERT_TRUE(designer.ok()) << designer.status();
    EXPECT_NE(dynamic_cast<GpBanditDesigner*>(designer->get()), nullptr)
        << v1::Algorithm_Name(algorithm);
    std::mt19937_64 rng(1);
    absl::StatusOr<Suggestions> suggestions = (*designer)->Suggest({}, 3, rng);
    ASSERT_TRUE(suggestions.ok()) << suggestions.status();
    EXPECT_EQ(suggestions->points.size(), 3u);
  }
}

TEST(DesignerFactoryTest, RejectsAnUnknownAlgorithm) {
  absl::StatusOr<std::unique_ptr<Designer>> designer =
      MakeDesigner(Spec(static_cast<v1::Algorithm>(17)));
  ASSERT_FALSE(designer.ok());
  EXPECT_EQ(designer.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(designer.status().message()), HasSubstr("unknown algorithm 17"));
}

TEST(DesignerFactoryTest, GridSearchRejectsADoubleParameter) {
  v1::StudySpec spec = Spec(v1::GRID_SEARCH);
  *spec.add_parameters() = DoubleSpec("lr", 1e-4, 1e-1);
  absl::StatusOr<std::unique_ptr<Designer>> designer = MakeDesigner(spec);
  ASSERT_FALSE(designer.ok());
  EXPECT_EQ(designer.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(designer.status().message()),
              HasSubstr("GRID_SEARCH cannot enumerate DOUBLE parameter \"lr\""));
}

TEST(DesignerFactoryTest, RejectsAnInvalidSearchSpace) {
  v1::StudySpec spec = Spec(v1::RANDOM_SEARCH);
  spec.mutable_parameters(0)->set_min_value(10);
  absl::StatusOr<std::unique_ptr<Designer>> designer = MakeDesigner(spec);
  ASSERT_FALSE(designer.ok());
  EXPECT_EQ(designer.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(designer.status().message()),
              HasSubstr("parameter \"layers\": minValue 10 must be less than maxValue 4"));
}

TEST(DesignerFactoryTest, DescribesTheAlgorithmThatRuns) {
  EXPECT_EQ(DescribeAlgorithm(Spec(v1::ALGORITHM_UNSPECIFIED)),
            "GAUSSIAN_PROCESS_BANDIT (ALGORITHM_UNSPECIFIED uses Gaussian-process Bayesian "
            "optimisation after a quasi-random start)");
  EXPECT_EQ(DescribeAlgorithm(Spec(v1::GRID_SEARCH)), "GRID_SEARCH");
  EXPECT_EQ(DescribeAlgorithm(Spec(v1::RANDOM_SEARCH)), "RANDOM_SEARCH");
  EXPECT_EQ(DescribeAlgorithm(Spec(v1::QUASI_RANDOM_SEARCH)), "QUASI_RANDOM_SEARCH");
  EXPECT_EQ(DescribeAlgorithm(Spec(v1::GAUSSIAN_PROCESS_BANDIT)),
            "GAUSSIAN_PROCESS_BANDIT (Gaussian-process Bayesian optimisation after a "
            "quasi-random start)");
  EXPECT_EQ(DescribeAlgorithm(Spec(static_cast<v1::Algorithm>(17))), "algorithm 17 (unknown)");
}

}  // namespace
}  // namespace vernier::suggest
