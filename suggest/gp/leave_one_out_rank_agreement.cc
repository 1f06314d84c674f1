#include "suggest/gp/leave_one_out_rank_agreement.h"

#include <cmath>

#include "suggest/gp/output_warper.h"

namespace vernier::suggest {

double LeaveOneOutRankAgreement::Of(const GaussianProcess& model, const Eigen::VectorXd& values) {
  if (values.size() < 3 || values.size() != model.size()) return 0.0;
  Eigen::VectorXd residuals;
  Eigen::VectorXd variances;
  model.LeaveOneOut(&residuals, &variances);
  // What the others predict at each observation: y_i - (y_i - mean_-i).
  const Eigen::VectorXd predicted = values - residuals;
  if (!predicted.allFinite()) return 0.0;
  Eigen::VectorXd observed_ranks = OutputWarper::Ranks(values);
  Eigen::VectorXd predicted_ranks = OutputWarper::Ranks(predicted);
  observed_ranks.array() -= observed_ranks.mean();
  predicted_ranks.array() -= predicted_ranks.mean();
  const double scale = std::sqrt(observed_ranks.squaredNorm() * predicted_ranks.squaredNorm());
  if (!(scale > 0.0)) return 0.0;
  return observed_ranks.dot(predicted_ranks) / scale;
}

}  // namespace vernier::suggest
