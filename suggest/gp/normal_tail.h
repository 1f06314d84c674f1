#ifndef VERNIER_SUGGEST_GP_NORMAL_TAIL_H_
#define VERNIER_SUGGEST_GP_NORMAL_TAIL_H_

namespace vernier::suggest {

// The standard normal distribution where its lower tail underflows: the
// quantities the acquisitions need, accurate far into the tail (Ament et
// al., "Unexpected Improvements to Expected Improvement", 2023).
class NormalTail {
 public:
  static double Pdf(double z);
  // log Pdf(z), without underflow far in the tails.
  static double LogPdf(double z);
  static double Cdf(double z);
  // exp(x^2) erfc(x) for x >= 0.
  static double Erfcx(double x);
  // The Mills ratio Phi(-u) / phi(u), u >= 0.
  static double MillsRatio(double u);
  // log Phi(z), finite for every finite z.
  static double LogCdf(double z);
  // d log Phi(z) / dz = phi(z) / Phi(z).
  static double LogCdfSlope(double z);
};

}  // namespace vernier::suggest

#endif  // VERNIER_SUGGEST_GP_NORMAL_TAIL_H_
