#ifndef VERNIER_BENCH_QUALITY_ROSENBROCK_H_
#define VERNIER_BENCH_QUALITY_ROSENBROCK_H_

#include <span>
#include <string>
#include <vector>

#include "bench/quality/box_problem.h"

namespace vernier::bench {

// Rosenbrock's valley in 4 dimensions on [-5,10]^4, minimum 0 at (1,1,1,1):
// easy to find the valley, hard to follow it.
class Rosenbrock : public BoxProblem {
 public:
  Rosenbrock();
  std::string name() const override;
  double OptimalValue() const override;
  double Value(std::span<const double> x) const override;
  std::vector<double> Minimizer() const override;
};

}  // namespace vernier::bench

#endif  // VERNIER_BENCH_QUALITY_ROSENBROCK_H_
