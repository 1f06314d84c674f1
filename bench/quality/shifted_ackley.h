#ifndef VERNIER_BENCH_QUALITY_SHIFTED_ACKLEY_H_
#define VERNIER_BENCH_QUALITY_SHIFTED_ACKLEY_H_

#include <span>
#include <string>
#include <vector>

#include "bench/quality/box_problem.h"

namespace vernier::bench {

// Ackley in 5 dimensions on [-32.768,32.768]^5, moved so that its minimum (0)
// lies off the centre of the box, where space-filling designs put a point:
// a nearly flat plateau riddled with local minima around one narrow funnel.
class ShiftedAckley : public BoxProblem {
 public:
  ShiftedAckley();
  std::string name() const override;
  double OptimalValue() const override;
  double Value(std::span<const double> x) const override;
  std::vector<double> Minimizer() const override;
};

}  // namespace vernier::bench

#endif  // VERNIER_BENCH_QUALITY_SHIFTED_ACKLEY_H_
