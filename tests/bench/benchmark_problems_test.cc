#include "bench/quality/benchmark_problems.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <numbers>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "bench/quality/branin.h"
#include "bench/quality/hartmann6.h"
#include "bench/quality/mixed_training_problem.h"
#include "bench/quality/rosenbrock.h"
#include "bench/quality/shifted_ackley.h"
#include "bench/quality/shifted_rastrigin.h"
#include "bench/quality/six_hump_camel.h"
#include "suggest/search_space.h"

namespace vernier::bench {
namespace {

using ::testing::DoubleNear;

bool Maximizes(const BenchmarkProblem& problem) {
  return problem.Spec().metrics(0).goal() == v1::MetricSpec::MAXIMIZE;
}

suggest::ParameterAssignment BoxPoint(const BoxProblem& problem, std::vector<double> x) {
  suggest::ParameterAssignment point = problem.Optimum();
  for (size_t i = 0; i < x.size(); ++i) point[i].set_double_value(x[i]);
  return point;
}

TEST(BenchmarkProblemsTest, HaveUniqueNamesAndValidSpecsWithOneMetric) {
  std::set<std::string> names;
  bool some_maximize = false;
  for (const auto& problem : AllBenchmarkProblems()) {
    SCOPED_TRACE(problem->name());
    EXPECT_TRUE(names.insert(problem->name()).second);
    const v1::StudySpec spec = problem->Spec();
    EXPECT_TRUE(suggest::SearchSpace::Create(spec.parameters()).ok());
    ASSERT_EQ(spec.metrics_size(), 1);
    EXPECT_NE(spec.metrics(0).goal(), v1::MetricSpec::GOAL_UNSPECIFIED);
    some_maximize = some_maximize || Maximizes(*problem);
  }
  EXPECT_EQ(names.size(), 8u);
  EXPECT_TRUE(some_maximize) << "the MAXIMIZE path of the designers goes unbenchmarked";
}

TEST(BenchmarkProblemsTest, TheOptimumIsInTheSpaceAndTakesTheOptimalValue) {
  for (const auto& problem : AllBenchmarkProblems()) {
    SCOPED_TRACE(problem->name());
    absl::StatusOr<suggest::SearchSpace> space =
        suggest::SearchSpace::Create(problem->Spec().parameters());
    ASSERT_TRUE(space.ok());
    EXPECT_TRUE(space->Encode(problem->Optimum()).ok());
    const double value = problem->Evaluate(problem->Optimum());
    EXPECT_THAT(value, DoubleNear(problem->OptimalValue(), 1e-12));
    EXPECT_THAT(problem->Regret(value), DoubleNear(0, 1e-12));
  }
}

// A wrong f* constant, or a function with a lower minimum than claimed,
// shows up as a random point beating the optimum.
TEST(BenchmarkProblemsTest, NoRandomPointBeatsTheOptimalValue) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> unit(0, 1);
  for (const auto& problem : AllBenchmarkProblems()) {
    SCOPED_TRACE(problem->name());
    absl::StatusOr<suggest::SearchSpace> space =
        suggest::SearchSpace::Create(problem->Spec().parameters());
    ASSERT_TRUE(space.ok());
    std::vector<double> optimum = *space->Encode(problem->Optimum());
    double least_regret = INFINITY;
    for (int i = 0; i < 20000; ++i) {
      std::vector<double> x(space->dimension());
      // Half the points near the optimum, where a wrong constant shows.
      const double radius = i % 2 == 0 ? 1.0 : 1e-3;
      for (int j = 0; j < space->dimension(); ++j) {
        x[j] = optimum[j] + radius * (2 * unit(rng) - 1);
      }
      least_regret = std::min(least_regret, problem->Regret(problem->Evaluate(space->Decode(x))));
    }
    EXPECT_GE(least_regret, -1e-12);
  }
}

TEST(BenchmarkProblemsTest, RegretCountsFromTheOptimumInTheGoalsDirection) {
  Branin branin;
  EXPECT_DOUBLE_EQ(branin.Regret(1.5), 1.5 - 5 / (4 * std::numbers::pi));
  MixedTrainingProblem mixed;
  EXPECT_DOUBLE_EQ(mixed.Regret(0.75), 0.25);
}

TEST(BraninTest, HasItsKnownValues) {
  Branin branin;
  EXPECT_NEAR(branin.OptimalValue(), 0.397887, 1e-6);
  EXPECT_DOUBLE_EQ(branin.Value(std::vector<double>{0, 0}), 55.602112642270264);
  // The other two global minima.
  EXPECT_NEAR(branin.Value(std::vector<double>{-std::numbers::pi, 12.275}), branin.OptimalValue(),
              1e-12);
  EXPECT_NEAR(branin.Value(std::vector<double>{3 * std::numbers::pi, 2.475}), branin.OptimalValue(),
              1e-12);
}

TEST(Hartmann6Test, HasItsKnownValues) {
  Hartmann6 hartmann;
  EXPECT_NEAR(hartmann.OptimalValue(), -3.32237, 1e-5);
  EXPECT_NEAR(hartmann.Value(std::vector<double>(6, 0.5)), -0.5053149917022333, 1e-12);
  EXPECT_NEAR(hartmann.Evaluate(BoxPoint(hartmann, std::vector<double>(6, 0.5))),
              -0.5053149917022333, 1e-12);
}

TEST(RosenbrockTest, HasItsKnownValues) {
  Rosenbrock rosenbrock;
  EXPECT_EQ(rosenbrock.OptimalValue(), 0);
  EXPECT_EQ(rosenbrock.Spec().parameters_size(), 4);
  EXPECT_DOUBLE_EQ(rosenbrock.Value(std::vector<double>{0, 0, 0, 0}), 3);
  EXPECT_DOUBLE_EQ(rosenbrock.Value(std::vector<double>{1, 1, 1, 2}), 100);
}

TEST(ShiftedAckleyTest, HasItsMinimumOffTheCentre) {
  ShiftedAckley ackley;
  EXPECT_EQ(ackley.OptimalValue(), 0);
  std::vector<double> x = ackley.Minimizer();
  ASSERT_EQ(x.size(), 5u);
  EXPECT_EQ(ackley.Value(x), 0);
  EXPECT_GT(ackley.Value(std::vector<double>(5, 0)), 5);
  x[0] += 1;
  EXPECT_NEAR(ackley.Value(x), 1.71118712785566, 1e-12);
}

TEST(ShiftedRastriginTest, HasItsMinimumOffTheCentre) {
  ShiftedRastrigin rastrigin;
  EXPECT_EQ(rastrigin.OptimalValue(), 0);
  std::vector<double> x = rastrigin.Minimizer();
  ASSERT_EQ(x.size(), 3u);
  EXPECT_EQ(rastrigin.Value(x), 0);
  EXPECT_GT(rastrigin.Value(std::vector<double>(3, 0)), 5);
  // The neighbouring local minimum.
  x[0] += 1;
  EXPECT_NEAR(rastrigin.Value(x), 1, 1e-12);
}

TEST(SixHumpCamelTest, HasItsKnownValues) {
  SixHumpCamel camel;
  EXPECT_NEAR(camel.OptimalValue(), -1.0316, 1e-4);
  EXPECT_EQ(camel.Value(std::vector<double>{0, 0}), 0);
  EXPECT_DOUBLE_EQ(camel.Value(std::vector<double>{1, 1}), 3.2333333333333334);
  // The symmetric global minimum.
  EXPECT_NEAR(camel.Value(std::vector<double>{-0.08984201310112414, 0.7126564029512711}),
              camel.OptimalValue(), 1e-15);
}

TEST(MixedTrainingProblemTest, IsMaximizedOverFourKindsOfParameter) {
  MixedTrainingProblem mixed;
  const v1::StudySpec spec = mixed.Spec();
  EXPECT_EQ(spec.metrics(0).goal(), v1::MetricSpec::MAXIMIZE);
  ASSERT_EQ(spec.parameters_size(), 4);
  EXPECT_EQ(spec.parameters(0).type(), v1::ParameterSpec::DOUBLE);
  EXPECT_EQ(spec.parameters(0).scale_type(), v1::ParameterSpec::UNIT_LOG_SCALE);
  EXPECT_EQ(spec.parameters(1).type(), v1::ParameterSpec::INTEGER);
  EXPECT_EQ(spec.parameters(2).type(), v1::ParameterSpec::DISCRETE);
  EXPECT_EQ(spec.parameters(3).type(), v1::ParameterSpec::CATEGORICAL);
  EXPECT_EQ(mixed.OptimalValue(), 1);
}

TEST(MixedTrainingProblemTest, HasItsKnownValues) {
  MixedTrainingProblem mixed;
  suggest::ParameterAssignment point = mixed.Optimum();
  point[3].set_string_value("sgd");
  point[0].set_double_value(0.1);
  EXPECT_NEAR(mixed.Evaluate(point), 0.95, 1e-12);
  point = mixed.Optimum();
  point[1].set_int_value(1);
  point[2].set_double_value(16);
  EXPECT_NEAR(mixed.Evaluate(point), 1 - 0.16 - 0.06, 1e-12);
  point[3].set_string_value("lbfgs");
  EXPECT_TRUE(std::isnan(mixed.Evaluate(point)));
}

// Every combination of the discrete parameters, the learning rate on a fine
// grid: none beats 1.
TEST(MixedTrainingProblemTest, EnumerationFindsNothingAboveTheOptimum) {
  MixedTrainingProblem mixed;
  absl::StatusOr<suggest::SearchSpace> space =
      suggest::SearchSpace::Create(mixed.Spec().parameters());
  ASSERT_TRUE(space.ok());
  double best = -INFINITY;
  for (int64_t layers = 0; layers < *space->Cardinality(1); ++layers) {
    for (int64_t batch = 0; batch < *space->Cardinality(2); ++batch) {
      for (int64_t optimizer = 0; optimizer < *space->Cardinality(3); ++optimizer) {
        for (int step = 0; step <= 5000; ++step) {
          suggest::ParameterAssignment point = mixed.Optimum();
          point[0].set_double_value(std::pow(10.0, -5 + step / 1000.0));
          point[1] = space->ValueAt(1, layers);
          point[2] = space->ValueAt(2, batch);
          point[3] = space->ValueAt(3, optimizer);
          best = std::max(best, mixed.Evaluate(point));
        }
      }
    }
  }
  EXPECT_NEAR(best, 1, 1e-12);
  EXPECT_LE(best, 1 + 1e-12);
}

}  // namespace
}  // namespace vernier::bench
