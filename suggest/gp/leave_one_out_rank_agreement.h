#ifndef VERNIER_SUGGEST_GP_LEAVE_ONE_OUT_RANK_AGREEMENT_H_
#define VERNIER_SUGGEST_GP_LEAVE_ONE_OUT_RANK_AGREEMENT_H_

#include <Eigen/Dense>

#include "suggest/gp/gaussian_process.h"

namespace vernier::suggest {

// How well a fitted model orders its own observations when each is left
// out: Spearman's rank correlation between the observed values and what
// the others predict there (GaussianProcess::LeaveOneOut), ties sharing
// their mean rank. In [-1, 1]; 0 when either side is constant (nothing to
// order), when there are fewer than 3 observations, or when `values` is
// not the size of the model.
//
// Rank-based, so two models of the same observations under different
// order-keeping output warps (OutputWarper) compare on the same footing:
// the one whose predictions order unseen trials better is the better
// guide to a front, whatever units its values are in.
class LeaveOneOutRankAgreement {
 public:
  // `values`: the model's observations, in its order.
  static double Of(const GaussianProcess& model, const Eigen::VectorXd& values);
};

}  // namespace vernier::suggest

#endif  // VERNIER_SUGGEST_GP_LEAVE_ONE_OUT_RANK_AGREEMENT_H_
