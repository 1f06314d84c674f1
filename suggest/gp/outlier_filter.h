#ifndef VERNIER_SUGGEST_GP_OUTLIER_FILTER_H_
#define VERNIER_SUGGEST_GP_OUTLIER_FILTER_H_

#include <Eigen/Dense>
#include <vector>

#include "suggest/gp/gaussian_process.h"

namespace vernier::suggest {

// Finds the observations that are far worse than the others predict where
// they are: a run that met an unlucky seed or a bad node and reported a
// poor value at a good point. A Gaussian likelihood takes such a value at
// its word, and one of them among good trials pulls the model's mean down
// over the whole neighbourhood (and its noise up everywhere), so the search
// leaves the best region. Judged by leave-one-out (GaussianProcess::
// LeaveOneOut): an observation is an outlier when the others predict a
// value above the median there (the upper half of the values: elsewhere the
// model's shape matters little, and a rugged function's bumps are not
// outliers) and its value lies more than `threshold` predictive deviations
// below that prediction. Only worse values count (values are
// larger-is-better here): a value far better than predicted is what a
// search is looking for.
class OutlierFilter {
 public:
  struct Options {
    // Predictive deviations below the leave-one-out mean.
    double threshold = 3.0;
    // At most this share of the observations (rounded down), the furthest
    // below first: when more lie that far below, the model is wrong, not
    // the observations.
    double max_share = 0.2;
  };

  OutlierFilter() = default;
  explicit OutlierFilter(Options options) : options_(options) {}

  // Indices into the model's observations (`values`, the model's values in
  // its order), in increasing order.
  std::vector<int> Outliers(const GaussianProcess& model, const Eigen::VectorXd& values) const;

 private:
  Options options_;
};

}  // namespace vernier::suggest

#endif  // VERNIER_SUGGEST_GP_OUTLIER_FILTER_H_
