#include "suggest/gp/outlier_filter.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/base/internal/raw_logging.h"

namespace vernier::suggest {

std::vector<int> OutlierFilter::Outliers(const GaussianProcess& model,
                                         const Eigen::VectorXd& values) const {
  ABSL_RAW_CHECK(values.size() == model.size(), "OutlierFilter: one value per observation");
  const int most = static_cast<int>(std::floor(options_.max_share * model.size()));
  if (most < 1) return {};
  Eigen::VectorXd residuals;
  Eigen::VectorXd variances;
  model.LeaveOneOut(&residuals, &variances);
  // (standardised residual, index) of the values that far below.
  std::vector<std::pair<double, int>> below;
  Eigen::VectorXd sorted = values;
  std::sort(sorted.data(), sorted.data() + sorted.size());
  const double median = sorted[sorted.size() / 2];
  for (Eigen::Index i = 0; i < residuals.size(); ++i) {
    // Where the others predict a poor value the model's shape matters
    // little, and a rugged function's bumps are not outliers.
    if (values[i] - residuals[i] < median) continue;
    const double z = residuals[i] / std::sqrt(variances[i]);
    if (z < -options_.threshold) below.emplace_back(z, static_cast<int>(i));
  }
  std::sort(below.begin(), below.end());
  if (static_cast<int>(below.size()) > most) below.resize(most);
  std::vector<int> outliers;
  for (const auto& [z, i] : below) outliers.push_back(i);
  std::sort(outliers.begin(), outliers.end());
  return outliers;
}

}  // namespace vernier::suggest
