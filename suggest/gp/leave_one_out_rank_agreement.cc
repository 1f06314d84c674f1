#include "suggest/gp/leave_one_out_rank_agreement.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace vernier::suggest {

Eigen::VectorXd LeaveOneOutRankAgreement::Ranks(const Eigen::VectorXd& values) {
  const Eigen::Index n = values.size();
  std::vector<Eigen::Index> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&values](Eigen::Index a, Eigen::Index b) { return values[a] < values[b]; });
  Eigen::VectorXd ranks(n);
  for (Eigen::Index first = 0; first < n;) {
    Eigen::Index last = first;
    while (last + 1 < n && values[order[last + 1]] == values[order[first]]) ++last;
    const double rank = 0.5 * static_cast<double>(first + last);
    for (Eigen::Index i = first; i <= last; ++i) ranks[order[i]] = rank;
    first = last + 1;
  }
  return ranks;
}

double LeaveOneOutRankAgreement::Of(const GaussianProcess& model, const Eigen::VectorXd& values) {
  if (values.size() < 3 || values.size() != model.size()) return 0.0;
  Eigen::VectorXd residuals;
  Eigen::VectorXd variances;
  model.LeaveOneOut(&residuals, &variances);
  // What the others predict at each observation: y_i - (y_i - mean_-i).
  const Eigen::VectorXd predicted = values - residuals;
  if (!predicted.allFinite()) return 0.0;
  Eigen::VectorXd observed_ranks = Ranks(values);
  Eigen::VectorXd predicted_ranks = Ranks(predicted);
  observed_ranks.array() -= observed_ranks.mean();
  predicted_ranks.array() -= predicted_ranks.mean();
  const double scale = std::sqrt(observed_ranks.squaredNorm() * predicted_ranks.squaredNorm());
  if (!(scale > 0.0)) return 0.0;
  return observed_ranks.dot(predicted_ranks) / scale;
}

}  // namespace vernier::suggest
