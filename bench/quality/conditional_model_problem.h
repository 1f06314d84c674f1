#ifndef VERNIER_BENCH_QUALITY_CONDITIONAL_MODEL_PROBLEM_H_
#define VERNIER_BENCH_QUALITY_CONDITIONAL_MODEL_PROBLEM_H_

#include <string>

#include "bench/quality/benchmark_problem.h"

namespace vernier::bench {

// A made-up "accuracy" to MAXIMIZE over a conditional space two levels deep,
// a model family with children (bench/conditional_optuna.py poses the very
// same function to Optuna):
//   model: linear | tree | dnn
//     linear -> l2 (DOUBLE 1e-6..1, log)
//     tree   -> max_depth (INTEGER 2..16), n_estimators (DISCRETE 50..800)
//     dnn    -> layers (INTEGER 1..6)
//                 layers 3..6 -> dropout (DOUBLE 0..0.7)
//               optimizer: sgd | adam
//                 sgd  -> momentum (DOUBLE 0..0.99), sgd_lr (DOUBLE 1e-4..1, log)
//                 adam -> adam_lr (DOUBLE 1e-5..0.1, log)
// Each branch is a sum of penalties that vanish at its best values; the best
// of linear is 0.80, of tree 0.88, of dnn 0.95 (4 layers, dropout 0.3, adam
// at a learning rate of 10^-3.3), so the optimum lies two levels down in one
// branch of three, and a designer must tell the branches apart.
class ConditionalModelProblem : public BenchmarkProblem {
 public:
  std::string name() const override;
  v1::StudySpec Spec() const override;
  double Evaluate(const suggest::ParameterAssignment& point) const override;
  double OptimalValue() const override;
  suggest::ParameterAssignment Optimum() const override;
};

}  // namespace vernier::bench

#endif  // VERNIER_BENCH_QUALITY_CONDITIONAL_MODEL_PROBLEM_H_
