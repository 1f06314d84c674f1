#ifndef VERNIER_BENCH_QUALITY_SIX_HUMP_CAMEL_H_
#define VERNIER_BENCH_QUALITY_SIX_HUMP_CAMEL_H_

#include <span>
#include <string>
#include <vector>

#include "bench/quality/box_problem.h"

namespace vernier::bench {

// The six-hump camel back on [-3,3] x [-2,2]: six local minima, the two
// global ones -1.0316 at (0.0898, -0.7127) and (-0.0898, 0.7127).
class SixHumpCamel : public BoxProblem {
 public:
  SixHumpCamel();
  std::string name() const override;
  double OptimalValue() const override;
  double Value(std::span<const double> x) const override;
  std::vector<double> Minimizer() const override;
};

}  // namespace vernier::bench

#endif  // VERNIER_BENCH_QUALITY_SIX_HUMP_CAMEL_H_
