#include "bench/quality/benchmark_problems.h"

#include "bench/quality/branin.h"
#include "bench/quality/conditional_model_problem.h"
#include "bench/quality/hartmann6.h"
#include "bench/quality/mixed_training_problem.h"
#include "bench/quality/rosenbrock.h"
#include "bench/quality/shifted_ackley.h"
#include "bench/quality/shifted_rastrigin.h"
#include "bench/quality/six_hump_camel.h"

namespace vernier::bench {

std::vector<std::unique_ptr<BenchmarkProblem>> AllBenchmarkProblems() {
  std::vector<std::unique_ptr<BenchmarkProblem>> problems;
  problems.push_back(std::make_unique<Branin>());
  problems.push_back(std::make_unique<Hartmann6>());
  problems.push_back(std::make_unique<Rosenbrock>());
  problems.push_back(std::make_unique<ShiftedAckley>());
  problems.push_back(std::make_unique<ShiftedRastrigin>());
  problems.push_back(std::make_unique<SixHumpCamel>());
  problems.push_back(std::make_unique<MixedTrainingProblem>());
  problems.push_back(std::make_unique<ConditionalModelProblem>());
  return problems;
}

}  // namespace vernier::bench
