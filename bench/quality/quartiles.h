#ifndef VERNIER_BENCH_QUALITY_QUARTILES_H_
#define VERNIER_BENCH_QUALITY_QUARTILES_H_

#include <vector>

namespace vernier::bench {

struct Quartiles {
  double lower = 0;
  double median = 0;
  double upper = 0;
};

// The quartiles of a non-empty sample, interpolated linearly between order
// statistics (R's type 7, numpy's default): of {1,2,3,4}, 1.75, 2.5, 3.25.
Quartiles ComputeQuartiles(std::vector<double> values);

}  // namespace vernier::bench

#endif  // VERNIER_BENCH_QUALITY_QUARTILES_H_
