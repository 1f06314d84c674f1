#ifndef VERNIER_SUGGEST_GP_UPPER_CONFIDENCE_BOUND_H_
#define VERNIER_SUGGEST_GP_UPPER_CONFIDENCE_BOUND_H_

#include "suggest/gp/acquisition.h"

namespace vernier::suggest {

// The upper confidence bound mean + beta * sigma (maximisation). Unlike
// expected improvement it does not vanish away from the incumbent: with a
// small beta it ranks points by what the model expects there, with a
// bonus for what it does not know.
class UpperConfidenceBound final : public Acquisition {
 public:
  // beta >= 0.
  explicit UpperConfidenceBound(double beta) : beta_(beta) {}

  double beta() const { return beta_; }
  double Value(double mean, double variance) const override;
  double ValueWithDerivatives(double mean, double variance, double* d_mean,
                              double* d_variance) const override;

 private:
  double beta_;
};

}  // namespace vernier::suggest

#endif  // VERNIER_SUGGEST_GP_UPPER_CONFIDENCE_BOUND_H_
