#ifndef VERNIER_BENCH_QUALITY_BRANIN_H_
#define VERNIER_BENCH_QUALITY_BRANIN_H_

#include <span>
#include <string>
#include <vector>

#include "bench/quality/box_problem.h"

namespace vernier::bench {

// Branin-Hoo on [-5,10] x [0,15]: three global minima of 5/(4 pi), one of
// them at (pi, 2.275).
class Branin : public BoxProblem {
 public:
  Branin();
  std::string name() const override;
  double OptimalValue() const override;
  double Value(std::span<const double> x) const override;
  std::vector<double> Minimizer() const override;
};

}  // namespace vernier::bench

#endif  // VERNIER_BENCH_QUALITY_BRANIN_H_
