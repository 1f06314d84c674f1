#ifndef VERNIER_SUGGEST_GP_OUTPUT_WARPER_H_
#define VERNIER_SUGGEST_GP_OUTPUT_WARPER_H_

#include <Eigen/Dense>
#include <optional>
#include <span>

namespace vernier::suggest {

// Turns objective values (larger is better) into the standardised values a
// Gaussian process models well, keeping their order:
// 1. half-rank warping: values below the median are replaced by normal
//    quantiles of their rank, scaled by the spread of the upper half, so a
//    few disastrous trials (a diverged run at 1e9) cannot flatten the
//    differences among the good ones (a further log warping of the top, as
//    in Vizier, made no difference on bench/suggest_quality_bench);
// 2. standardising to mean 0 and variance 1.
// Trials without a value (INFEASIBLE, FAILED, no objective reported) get a
// value below the worst warped one, so the model learns to avoid where they
// were instead of ignoring them. All values equal (or a single one) become
// 0, and trials without a value then -1.
class OutputWarper {
 public:
  // How far below the worst warped value a trial without a value lands, in
  // standard deviations of the warped values.
  static constexpr double kMissingPenalty = 0.5;

  Eigen::VectorXd Warp(std::span<const std::optional<double>> values) const;

 private:
  static void HalfRankWarp(Eigen::VectorXd& values);
};

}  // namespace vernier::suggest

#endif  // VERNIER_SUGGEST_GP_OUTPUT_WARPER_H_
