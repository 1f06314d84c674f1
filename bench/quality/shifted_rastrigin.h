#ifndef VERNIER_BENCH_QUALITY_SHIFTED_RASTRIGIN_H_
#define VERNIER_BENCH_QUALITY_SHIFTED_RASTRIGIN_H_

#include <span>
#include <string>
#include <vector>

#include "bench/quality/box_problem.h"

namespace vernier::bench {

// Rastrigin in 3 dimensions on [-5.12,5.12]^3, moved off the centre of the box
// like ShiftedAckley: a bowl covered by a regular lattice of local minima,
// the global one 0.
class ShiftedRastrigin : public BoxProblem {
 public:
  ShiftedRastrigin();
  std::string name() const override;
  double OptimalValue() const override;
  double Value(std::span<const double> x) const override;
  std::vector<double> Minimizer() const override;
};

}  // namespace vernier::bench

#endif  // VERNIER_BENCH_QUALITY_SHIFTED_RASTRIGIN_H_
