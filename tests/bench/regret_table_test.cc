#include "bench/quality/regret_table.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace vernier::bench {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

DesignerRegrets Regrets(v1::Algorithm algorithm, std::vector<double> regrets) {
  return {algorithm, absl::OkStatus(), std::move(regrets)};
}

DesignerRegrets Unavailable(v1::Algorithm algorithm) {
  return {algorithm, absl::UnimplementedError("not in this version"), {}};
}

ProblemRegrets Row(const std::string& problem, double random, double quasi, double gp) {
  return {problem,
          0,
          v1::MetricSpec::MINIMIZE,
          {Regrets(v1::RANDOM_SEARCH, {random}), Regrets(v1::QUASI_RANDOM_SEARCH, {quasi}),
           Regrets(v1::GAUSSIAN_PROCESS_BANDIT, {gp})}};
}

TEST(TargetMetTest, AsksForTenTimesBetterThanRandomOnBranin) {
  EXPECT_EQ(TargetMet(Row("branin", 1.0, 0.5, 0.1)), "yes");
  EXPECT_EQ(TargetMet(Row("branin", 1.0, 0.5, 0.11)), "no");
  EXPECT_EQ(TargetMet(Row("hartmann6", 1.0, 0.5, 0.2)), "no");
  EXPECT_EQ(TargetMet(Row("six_hump_camel", 1.0, 0.5, 0.05)), "yes");
}

TEST(TargetMetTest, AsksForBetterThanRandomAndQuasiRandomElsewhere) {
  EXPECT_EQ(TargetMet(Row("rosenbrock4", 1.0, 0.5, 0.4)), "yes");
  EXPECT_EQ(TargetMet(Row("rosenbrock4", 1.0, 0.5, 0.6)), "no");
  EXPECT_EQ(TargetMet(Row("rosenbrock4", 0.5, 1.0, 0.6)), "no");
  // Nothing beats regret 0.
  EXPECT_EQ(TargetMet(Row("mixed", 0, 0, 0)), "yes");
}

TEST(TargetMetTest, UsesTheMedianOverSeeds) {
  ProblemRegrets row = Row("rosenbrock4", 1.0, 1.0, 0);
  row.designers[2].regrets = {0.1, 0.2, 5.0};
  EXPECT_EQ(TargetMet(row), "yes");
  row.designers[2].regrets = {0.1, 5.0, 5.0};
  EXPECT_EQ(TargetMet(row), "no");
}

TEST(TargetMetTest, IsOpenWithoutTheGpOrRandomSearch) {
  ProblemRegrets row = Row("branin", 1.0, 0.5, 0.01);
  row.designers[2] = Unavailable(v1::GAUSSIAN_PROCESS_BANDIT);
  EXPECT_EQ(TargetMet(row), "—");
  row = Row("branin", 1.0, 0.5, 0.01);
  row.designers[0] = Unavailable(v1::RANDOM_SEARCH);
  EXPECT_EQ(TargetMet(row), "—");
  // Without quasi-random search only random search counts.
  row = Row("branin", 1.0, 0.5, 0.01);
  row.designers[1] = Unavailable(v1::QUASI_RANDOM_SEARCH);
  EXPECT_EQ(TargetMet(row), "yes");
}

TEST(FormatRegretTableTest, ShowsMedianAndQuartilesPerDesigner) {
  ProblemRegrets row = Row("branin", 0, 0, 0);
  row.optimal_value = 0.397887;
  row.designers[0].regrets = {1, 2, 3, 4};
  row.designers[1] = Unavailable(v1::QUASI_RANDOM_SEARCH);
  row.designers[2].regrets = {0.1, 0.2, 0.3};
  const std::string table = FormatRegretTable({row});
  EXPECT_THAT(table, HasSubstr("| problem | goal | f* | random | quasi-random | GP | GP/random |"));
  EXPECT_THAT(table, HasSubstr("| branin | min | 0.397887 | 2.5 [1.75, 3.25] | not available | "
                               "0.2 [0.15, 0.25] | 0.08 | GP ≤ 0.1×random, < quasi | yes |"));
  EXPECT_THAT(table, Not(HasSubstr("Note")));
}

TEST(FormatRegretTableTest, MarksSpacesADesignerCannotServeAndFailedRuns) {
  ProblemRegrets row = {
      "mixed",
      1,
      v1::MetricSpec::MAXIMIZE,
      {Regrets(v1::RANDOM_SEARCH, {0.5}),
       {v1::GRID_SEARCH, absl::InvalidArgumentError("DOUBLE parameter"), {}},
       {v1::GAUSSIAN_PROCESS_BANDIT, absl::InternalError("Cholesky failed"), {}}}};
  const std::string table = FormatRegretTable({row});
  EXPECT_THAT(table, HasSubstr("| mixed | max | 1 | 0.5 [0.5, 0.5] | n/a | error (note 1) | — |"));
  EXPECT_THAT(table, HasSubstr("Note 1: mixed, GP: INTERNAL: Cholesky failed"));
}

}  // namespace
}  // namespace vernier::bench
