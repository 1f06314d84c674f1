#ifndef VERNIER_BENCH_QUALITY_REGRET_TABLE_H_
#define VERNIER_BENCH_QUALITY_REGRET_TABLE_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "vernier/v1/study.pb.h"

namespace vernier::bench {

// The final regrets of one designer on one problem, one per seed, or why
// there are none: UNIMPLEMENTED (designer not in this build),
// INVALID_ARGUMENT (cannot serve the space) or the error of a failed run.
struct DesignerRegrets {
  v1::Algorithm algorithm = v1::RANDOM_SEARCH;
  absl::Status status;
  std::vector<double> regrets;
};

struct ProblemRegrets {
  std::string problem;
  double optimal_value = 0;
  v1::MetricSpec::Goal goal = v1::MetricSpec::MINIMIZE;
  // In the order of the table's columns.
  std::vector<DesignerRegrets> designers;
};

// Whether the GP designer meets issue 3's targets on a problem: its median
// final regret below random search's and quasi-random search's (at most 0.1
// times random's on Branin, Hartmann6 and six-hump camel). "yes", "no", or
// "—" when the GP or random search has no result.
std::string TargetMet(const ProblemRegrets& row);
// The target of a problem in words, for the table.
std::string TargetText(const std::string& problem);

// A markdown table, one row per problem: f*, median final regret [lower
// quartile, upper quartile] per designer, GP/random ratio of medians, the
// target and whether it is met; notes for failed runs below it.
std::string FormatRegretTable(const std::vector<ProblemRegrets>& rows);

// "random", "quasi-random", "GP", "grid".
std::string DesignerShortName(v1::Algorithm algorithm);

}  // namespace vernier::bench

#endif  // VERNIER_BENCH_QUALITY_REGRET_TABLE_H_
