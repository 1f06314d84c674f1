#include "suggest/gp/feasibility_model.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/status/status.h"
#include "suggest/gp/normal_tail.h"

namespace vernier::suggest {

double FeasibilityModel::LabelMean(const std::vector<bool>& feasible) {
  if (feasible.empty()) return 0;
  const auto with_value = static_cast<double>(std::count(feasible.begin(), feasible.end(), true));
  return (2 * with_value - static_cast<double>(feasible.size())) /
         static_cast<double>(feasible.size());
}

Eigen::VectorXd FeasibilityModel::CentredLabels(const std::vector<bool>& feasible) {
  const double mean = LabelMean(feasible);
  Eigen::VectorXd labels(static_cast<Eigen::Index>(feasible.size()));
  for (size_t i = 0; i < feasible.size(); ++i) {
    labels[static_cast<Eigen::Index>(i)] = (feasible[i] ? 1 : -1) - mean;
  }
  return labels;
}

absl::StatusOr<FeasibilityModel> FeasibilityModel::Create(MaternKernel kernel,
                                                          double noise_variance,
                                                          Eigen::MatrixXd points,
                                                          const std::vector<bool>& feasible,
                                                          double exponent) {
  if (feasible.empty() || static_cast<size_t>(points.cols()) != feasible.size()) {
    return absl::InvalidArgumentError(
        "the feasibility model needs one label (whether the trial ended with a value) per trial");
  }
  absl::StatusOr<GaussianProcess> model = GaussianProcess::Create(
      std::move(kernel), noise_variance, std::move(points), CentredLabels(feasible));
  if (!model.ok()) return model.status();
  return FeasibilityModel(*std::move(model), LabelMean(feasible), exponent);
}

Eigen::VectorXd FeasibilityModel::LogProbability(const Eigen::MatrixXd& points) const {
  Eigen::VectorXd mean;
  Eigen::VectorXd variance;
  model_.Predict(points, &mean, &variance);
  Eigen::VectorXd result(mean.size());
  for (Eigen::Index i = 0; i < mean.size(); ++i) {
    const double spread = std::sqrt(variance[i] + model_.noise_variance());
    result[i] = NormalTail::LogCdf((mean[i] + offset_) / spread);
  }
  return result;
}

Eigen::VectorXd FeasibilityModel::LogWeight(const Eigen::MatrixXd& points) const {
  return exponent_ * LogProbability(points);
}

double FeasibilityModel::LogWeightWithGradient(const Eigen::VectorXd& x,
                                               Eigen::VectorXd* gradient) const {
  double mean;
  double variance;
  Eigen::VectorXd mean_gradient;
  Eigen::VectorXd variance_gradient;
  model_.PredictWithGradient(x, &mean, &variance, &mean_gradient, &variance_gradient);
  const double spread_squared = variance + model_.noise_variance();
  const double spread = std::sqrt(spread_squared);
  const double z = (mean + offset_) / spread;
  // dz = dmean / spread - z dvariance / (2 spread^2).
  *gradient = exponent_ * NormalTail::LogCdfSlope(z) *
              (mean_gradient / spread - (z / (2 * spread_squared)) * variance_gradient);
  return exponent_ * NormalTail::LogCdf(z);
}

}  // namespace vernier::suggest
