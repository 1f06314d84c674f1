#ifndef VERNIER_SUGGEST_GP_ACQUISITION_H_
#define VERNIER_SUGGEST_GP_ACQUISITION_H_

namespace vernier::suggest {

// An acquisition function of a Gaussian posterior N(mean, variance) at a
// point (maximisation: higher is a better point to try), with its
// derivatives, so AcquisitionOptimizer can follow its slope.
class Acquisition {
 public:
  virtual ~Acquisition() = default;

  // variance > 0.
  virtual double Value(double mean, double variance) const = 0;
  // The value, and its derivatives in the mean and the variance.
  virtual double ValueWithDerivatives(double mean, double variance, double* d_mean,
                                      double* d_variance) const = 0;
};

}  // namespace vernier::suggest

#endif  // VERNIER_SUGGEST_GP_ACQUISITION_H_
