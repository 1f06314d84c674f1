#include "suggest/gp/history_projector.h"

#include <algorithm>
#include <numeric>

#include "absl/base/internal/raw_logging.h"
#include "absl/status/status.h"
#include "suggest/gp/jittered_cholesky.h"
#include "suggest/gp/training_set_selector.h"

namespace vernier::suggest {
namespace {

// Left-out observations whose covariances to the model points are formed at
// once: the block stays in cache.
constexpr Eigen::Index kProjectChunk = 256;
// The nugget of a neighbourhood's covariance, relative to the signal
// variance: nearly coincident model points leave K_SS solvable.
constexpr double kRelativeNugget = 1e-8;

}  // namespace

absl::StatusOr<HistoryProjector::Projected> HistoryProjector::Project(
    const MaternKernel& kernel, double noise_variance, const Eigen::MatrixXd& points,
    const Eigen::VectorXd& values, const std::vector<int>& selected) const {
  ABSL_RAW_CHECK(points.cols() == values.size(), "HistoryProjector: one value per point");
  const Eigen::Index m = static_cast<Eigen::Index>(selected.size());
  Projected projected;
  projected.values.resize(m);
  Eigen::MatrixXd model(points.rows(), m);
  for (Eigen::Index i = 0; i < m; ++i) {
    model.col(i) = points.col(selected[i]);
    projected.values[i] = values[selected[i]];
  }
  projected.noise_covariance = Eigen::MatrixXd::Zero(m, m);
  projected.noise_covariance.diagonal().setConstant(noise_variance);
  if (m == 0 || !(noise_variance > 0) || neighbours_ <= 0) return projected;

  const std::vector<int> left_out =
      TrainingSetSelector::LeftOut(static_cast<int>(points.cols()), selected);
  if (left_out.empty()) return projected;

  const Eigen::Index k = std::min<Eigen::Index>(neighbours_, m);
  const double signal = kernel.signal_variance();
  const Eigen::MatrixXd model_covariance = kernel.Covariance(model);
  // W and h as the class comment writes them; the model points' own
  // observations first.
  Eigen::MatrixXd precision = Eigen::MatrixXd::Zero(m, m);
  precision.diagonal().setConstant(1 / noise_variance);
  Eigen::VectorXd weighted = projected.values / noise_variance;
  std::vector<Eigen::Index> order(m);
  std::vector<Eigen::Index> nearest(k);
  Eigen::MatrixXd local(k, k);
  Eigen::VectorXd cross(k);
  for (size_t start = 0; start < left_out.size(); start += kProjectChunk) {
    const Eigen::Index width =
        std::min<Eigen::Index>(kProjectChunk, static_cast<Eigen::Index>(left_out.size() - start));
    Eigen::MatrixXd others(points.rows(), width);
    for (Eigen::Index c = 0; c < width; ++c) others.col(c) = points.col(left_out[start + c]);
    const Eigen::MatrixXd covariances = kernel.CrossCovariance(model, others);  // m x width
    for (Eigen::Index c = 0; c < width; ++c) {
      const auto column = covariances.col(c);
      std::iota(order.begin(), order.end(), 0);
      std::nth_element(order.begin(), order.begin() + (k - 1), order.end(),
                       [&column](Eigen::Index a, Eigen::Index b) { return column[a] > column[b]; });
      for (Eigen::Index a = 0; a < k; ++a) {
        nearest[a] = order[a];
        cross[a] = column[order[a]];
        for (Eigen::Index b = 0; b <= a; ++b) {
          local(a, b) = local(b, a) = model_covariance(order[a], order[b]);
        }
      }
      local.diagonal().array() += kRelativeNugget * signal;
      const Eigen::LLT<Eigen::MatrixXd> factor(local);
      if (factor.info() != Eigen::Success) continue;  // Not a usable neighbourhood: skip it.
      const Eigen::VectorXd coefficients = factor.solve(cross);
      const double residual = std::max(0.0, signal - cross.dot(coefficients));
      const double weight = 1 / (noise_variance + residual);
      const double value = values[left_out[start + c]];
      for (Eigen::Index a = 0; a < k; ++a) {
        weighted[nearest[a]] += weight * coefficients[a] * value;
        for (Eigen::Index b = 0; b < k; ++b) {
          precision(nearest[a], nearest[b]) += weight * coefficients[a] * coefficients[b];
        }
      }
      ++projected.projected;
    }
  }
  if (projected.projected == 0) return projected;
  absl::StatusOr<JitteredCholesky> factor = JitteredCholesky::Factor(precision);
  if (!factor.ok()) return factor.status();
  // W^-1 = L^-T L^-1 (its lower triangle), mirrored.
  const Eigen::MatrixXd lower = factor->InverseLowerTriangle();
  projected.noise_covariance = lower.selfadjointView<Eigen::Lower>();
  projected.values = projected.noise_covariance * weighted;
  if (!projected.values.allFinite() || !projected.noise_covariance.allFinite()) {
    return absl::FailedPreconditionError("the projected history is not finite");
  }
  return projected;
}

}  // namespace vernier::suggest
