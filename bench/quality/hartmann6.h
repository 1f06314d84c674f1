#ifndef VERNIER_BENCH_QUALITY_HARTMANN6_H_
#define VERNIER_BENCH_QUALITY_HARTMANN6_H_

#include <span>
#include <string>
#include <vector>

#include "bench/quality/box_problem.h"

namespace vernier::bench {

// The six-dimensional Hartmann function on [0,1]^6: four Gaussian wells of
// different depths and shapes, the deepest -3.32237.
class Hartmann6 : public BoxProblem {
 public:
  Hartmann6();
  std::string name() const override;
  double OptimalValue() const override;
  double Value(std::span<const double> x) const override;
  std::vector<double> Minimizer() const override;
};

}  // namespace vernier::bench

#endif  // VERNIER_BENCH_QUALITY_HARTMANN6_H_
