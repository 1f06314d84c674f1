#include "bench/quality/rosenbrock.h"

namespace vernier::bench {

Rosenbrock::Rosenbrock() : BoxProblem(std::vector<Bounds>(4, {-5, 10})) {}

std::string Rosenbrock::name() const { return "rosenbrock4"; }

double Rosenbrock::OptimalValue() const { return 0; }

double Rosenbrock::Value(std::span<const double> x) const {
  double sum = 0;
  for (size_t i = 0; i + 1 < x.size(); ++i) {
    const double valley = x[i + 1] - x[i] * x[i];
    sum += 100 * valley * valley + (1 - x[i]) * (1 - x[i]);
  }
  return sum;
}

std::vector<double> Rosenbrock::Minimizer() const { return {1, 1, 1, 1}; }

}  // namespace vernier::bench
