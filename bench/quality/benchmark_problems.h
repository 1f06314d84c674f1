#ifndef VERNIER_BENCH_QUALITY_BENCHMARK_PROBLEMS_H_
#define VERNIER_BENCH_QUALITY_BENCHMARK_PROBLEMS_H_

#include <memory>
#include <vector>

#include "bench/quality/benchmark_problem.h"

namespace vernier::bench {

// Every problem of the quality benchmark, in the order of its tables.
std::vector<std::unique_ptr<BenchmarkProblem>> AllBenchmarkProblems();

}  // namespace vernier::bench

#endif  // VERNIER_BENCH_QUALITY_BENCHMARK_PROBLEMS_H_
