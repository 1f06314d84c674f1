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
//    (Lower::kHalfRank, the default; Lower::kClipped instead raises only
//    the values more than kClipSpreads robust spreads of the worse half
//    below its median to that floor and keeps every other value's
//    magnitude);
// 2. standardising to mean 0 and variance 1.
// Trials without a value (INFEASIBLE, FAILED, no objective reported) get a
// value below the worst warped one, so the model learns to avoid where they
// were instead of ignoring them. All values equal (or a single one) become
// 0, and trials without a value then -1.
class OutputWarper {
 public:
  // What becomes of the values below the median.
  enum class Lower {
    // Normal quantiles of their ranks (one objective: the model's
    // resolution goes to the good half, where the optimum is).
    kHalfRank,
    // Kept as they are down to kClipSpreads robust spreads of the worse
    // half below its median (1.4826 times its median absolute deviation;
    // its mean absolute deviation when that is 0), raised to that floor
    // beyond it. For several objectives, whose front holds points in the
    // worse half of each objective: a rank warp there makes an objective
    // look flat away from its best values, so that points at one
    // objective's best (a face of the front) outscore the rest of the
    // front. A few diverged runs' 1e9 still cannot flatten the others (up
    // to about a quarter of the values: beyond, the worse half's median is
    // theirs and they set the floor). MultiObjectiveGpDesigner uses it from
    // four objectives on.
    kClipped,
  };
  // How far below the worse half's median Lower::kClipped keeps values, in
  // its robust spreads.
  static constexpr double kClipSpreads = 6;
  // How far below the worst warped value a trial without a value lands, in
  // standard deviations of the warped values.
  static constexpr double kMissingPenalty = 0.5;

  explicit OutputWarper(Lower lower = Lower::kHalfRank) : lower_(lower) {}

  Eigen::VectorXd Warp(std::span<const std::optional<double>> values) const;

  // Ranks from 0 in increasing order, ties sharing their mean rank.
  static Eigen::VectorXd Ranks(const Eigen::VectorXd& values);

 private:
  static void HalfRankWarp(Eigen::VectorXd& values);
  static void ClipLowerTail(Eigen::VectorXd& values);

  Lower lower_;
};

}  // namespace vernier::suggest

#endif  // VERNIER_SUGGEST_GP_OUTPUT_WARPER_H_
