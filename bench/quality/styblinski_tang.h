#ifndef VERNIER_BENCH_QUALITY_STYBLINSKI_TANG_H_
#define VERNIER_BENCH_QUALITY_STYBLINSKI_TANG_H_

#include <span>
#include <string>
#include <vector>

#include "bench/quality/box_problem.h"

namespace vernier::bench {

// Styblinski-Tang in d dimensions on [-5,5]^d: sum of (x^4 - 16 x^2 + 5 x)/2,
// 2^d local minima (each coordinate near -2.90 or 2.75), the global one at
// -2.903534 in every coordinate, -39.16617 d. Separable, but its basins are
// wide and the two per coordinate differ by only 2.8 of about 40: a long
// study must resolve many nearly equal basins.
class StyblinskiTang : public BoxProblem {
 public:
  explicit StyblinskiTang(int dimension);
  std::string name() const override;
  double OptimalValue() const override;
  double Value(std::span<const double> x) const override;
  std::vector<double> Minimizer() const override;

 private:
  int dimension_;
};

}  // namespace vernier::bench

#endif  // VERNIER_BENCH_QUALITY_STYBLINSKI_TANG_H_
