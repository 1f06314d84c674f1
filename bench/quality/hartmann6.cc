#include "bench/quality/hartmann6.h"

#include <cmath>

namespace vernier::bench {
namespace {

constexpr double kAlpha[4] = {1.0, 1.2, 3.0, 3.2};
constexpr double kA[4][6] = {{10, 3, 17, 3.5, 1.7, 8},
                             {0.05, 10, 17, 0.1, 8, 14},
                             {3, 3.5, 1.7, 10, 17, 8},
                             {17, 8, 0.05, 10, 0.1, 14}};
constexpr double kP[4][6] = {{0.1312, 0.1696, 0.5569, 0.0124, 0.8283, 0.5886},
                             {0.2329, 0.4135, 0.8307, 0.3736, 0.1004, 0.9991},
                             {0.2348, 0.1451, 0.3522, 0.2883, 0.3047, 0.6650},
                             {0.4047, 0.8828, 0.8732, 0.5743, 0.1091, 0.0381}};

}  // namespace

Hartmann6::Hartmann6() : BoxProblem(std::vector<Bounds>(6, {0, 1})) {}

std::string Hartmann6::name() const { return "hartmann6"; }

// Found by Newton's method from the published minimiser (0.20169, 0.150011,
// 0.476874, 0.275332, 0.311652, 0.6573).
double Hartmann6::OptimalValue() const { return -3.3223680114155147; }

double Hartmann6::Value(std::span<const double> x) const {
  double sum = 0;
  for (int i = 0; i < 4; ++i) {
    double distance = 0;
    for (int j = 0; j < 6; ++j) distance += kA[i][j] * (x[j] - kP[i][j]) * (x[j] - kP[i][j]);
    sum += kAlpha[i] * std::exp(-distance);
  }
  return -sum;
}

std::vector<double> Hartmann6::Minimizer() const {
  return {0.20168951102720575, 0.1500106918203986,  0.4768739741442339,
          0.2753324304884061,  0.31165161660944474, 0.6573005340670894};
}

}  // namespace vernier::bench
