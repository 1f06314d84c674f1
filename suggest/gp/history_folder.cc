#include "suggest/gp/history_folder.h"

#include <algorithm>

#include "absl/base/internal/raw_logging.h"
#include "suggest/gp/training_set_selector.h"

namespace vernier::suggest {
namespace {

// Left-out observations whose covariances to the model points are formed at
// once: the block stays in cache.
constexpr Eigen::Index kFoldChunk = 256;

}  // namespace

HistoryFolder::Folded HistoryFolder::Fold(const MaternKernel& kernel, double noise_variance,
                                          const Eigen::MatrixXd& points,
                                          const Eigen::VectorXd& values,
                                          const std::vector<int>& selected) const {
  ABSL_RAW_CHECK(points.cols() == values.size(), "HistoryFolder: one value per point");
  const Eigen::Index m = static_cast<Eigen::Index>(selected.size());
  Folded folded;
  folded.values.resize(m);
  folded.noise_variances = Eigen::VectorXd::Constant(m, noise_variance);
  Eigen::MatrixXd model(points.rows(), m);
  for (Eigen::Index i = 0; i < m; ++i) {
    model.col(i) = points.col(selected[i]);
    folded.values[i] = values[selected[i]];
  }
  if (m == 0 || !(noise_variance > 0)) return folded;

  const std::vector<int> left_out =
      TrainingSetSelector::LeftOut(static_cast<int>(points.cols()), selected);
  if (left_out.empty()) return folded;

  // Per model point: the summed precision, precision-weighted values and
  // precision-weighted difference variances; its own observation first.
  const double own_precision = 1 / noise_variance;
  Eigen::VectorXd precision = Eigen::VectorXd::Constant(m, own_precision);
  Eigen::VectorXd weighted_values = folded.values * own_precision;
  Eigen::VectorXd weighted_differences = Eigen::VectorXd::Zero(m);
  const double signal = kernel.signal_variance();
  const double max_difference = max_difference_ratio_ * noise_variance;
  for (size_t start = 0; start < left_out.size(); start += kFoldChunk) {
    const Eigen::Index width =
        std::min<Eigen::Index>(kFoldChunk, static_cast<Eigen::Index>(left_out.size() - start));
    Eigen::MatrixXd others(points.rows(), width);
    for (Eigen::Index k = 0; k < width; ++k) others.col(k) = points.col(left_out[start + k]);
    const Eigen::MatrixXd cross = kernel.CrossCovariance(model, others);  // m x width
    for (Eigen::Index k = 0; k < width; ++k) {
      Eigen::Index nearest = 0;
      const double covariance = cross.col(k).maxCoeff(&nearest);
      const double difference = std::max(0.0, 2 * (signal - covariance));
      if (difference > max_difference) continue;
      const double weight = 1 / (noise_variance + difference);
      precision[nearest] += weight;
      weighted_values[nearest] += weight * values[left_out[start + k]];
      weighted_differences[nearest] += weight * difference;
      ++folded.folded;
    }
  }
  for (Eigen::Index i = 0; i < m; ++i) {
    folded.values[i] = weighted_values[i] / precision[i];
    folded.noise_variances[i] = 1 / precision[i] + weighted_differences[i] / precision[i];
  }
  return folded;
}

}  // namespace vernier::suggest
