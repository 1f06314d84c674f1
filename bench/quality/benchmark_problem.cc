#include "bench/quality/benchmark_problem.h"

namespace vernier::bench {

double BenchmarkProblem::Regret(double value) const {
  const bool maximize = Spec().metrics(0).goal() == v1::MetricSpec::MAXIMIZE;
  return maximize ? OptimalValue() - value : value - OptimalValue();
}

}  // namespace vernier::bench
