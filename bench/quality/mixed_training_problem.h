#ifndef VERNIER_BENCH_QUALITY_MIXED_TRAINING_PROBLEM_H_
#define VERNIER_BENCH_QUALITY_MIXED_TRAINING_PROBLEM_H_

#include <string>

#include "bench/quality/benchmark_problem.h"

namespace vernier::bench {

// A made-up "accuracy" to MAXIMIZE over the four kinds of parameter a
// training job has: learning_rate (DOUBLE, log scale, 1e-5..1), layers
// (INTEGER 1..8), batch_size (DISCRETE 16..256, log scale) and optimizer
// (CATEGORICAL). Each term is a penalty that vanishes at its best value, and
// the best learning rate depends on the optimizer, so the maximum is exactly
// 1 at learning_rate=1e-3, layers=5, batch_size=64, optimizer=adam.
class MixedTrainingProblem : public BenchmarkProblem {
 public:
  std::string name() const override;
  v1::StudySpec Spec() const override;
  double Evaluate(const suggest::ParameterAssignment& point) const override;
  double OptimalValue() const override;
  suggest::ParameterAssignment Optimum() const override;
};

}  // namespace vernier::bench

#endif  // VERNIER_BENCH_QUALITY_MIXED_TRAINING_PROBLEM_H_
