#ifndef VERNIER_SUGGEST_GP_LOG_EXPECTED_IMPROVEMENT_H_
#define VERNIER_SUGGEST_GP_LOG_EXPECTED_IMPROVEMENT_H_

#include "suggest/gp/acquisition.h"

namespace vernier::suggest {

// The logarithm of expected improvement over `best` (maximisation) for a
// Gaussian posterior N(mean, variance):
//   EI = sigma * h(z),  h(z) = phi(z) + z Phi(z),  z = (mean - best) / sigma.
// Computed as log sigma + log h(z) in a form that stays accurate where EI
// itself underflows to 0 (z far below 0, i.e. almost everywhere once the
// model is confident), following Ament et al., "Unexpected Improvements to
// Expected Improvement" (2023): for z <= -1, h(z) = phi(z) (1 - u m(u)) with
// u = -z and m the Mills ratio, through erfcx, and an asymptotic series for
// u > 100. So the optimiser always has a slope to follow.
class LogExpectedImprovement final : public Acquisition {
 public:
  explicit LogExpectedImprovement(double best) : best_(best) {}

  double best() const { return best_; }
  double Value(double mean, double variance) const override;
  double ValueWithDerivatives(double mean, double variance, double* d_mean,
                              double* d_variance) const override;

  // log h(z) and d log h / dz = Phi(z) / h(z).
  static double LogH(double z);
  static double LogHSlope(double z);

 private:
  double best_;
};

}  // namespace vernier::suggest

#endif  // VERNIER_SUGGEST_GP_LOG_EXPECTED_IMPROVEMENT_H_
