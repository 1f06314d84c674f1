#ifndef VERNIER_SUGGEST_GP_BATCH_TRUST_REGION_H_
#define VERNIER_SUGGEST_GP_BATCH_TRUST_REGION_H_

#include <span>

namespace vernier::suggest {

// The size of the region a batch's later points search around the best
// trial, grown and shrunk by the search's luck as TuRBO's trust region is
// (Eriksson et al. 2019), and replayed from the study's history at every
// request, so the designer keeps no state between requests.
//
// The ended trials, in the history's order (the service lists them by
// trial id, so a batch's trials are together), are cut into batches of
// `batch`, the current request's size, after the initial design (its
// first whole number of batches, `initial` trials or more). A batch
// succeeds when its best value beats the best before it by more than
// kMinImprovement of that best's magnitude, and fails otherwise.
// kSuccessesToGrow successes in a row double the size (up to kMaxLength);
// ceil(max(4, dimension) / batch) failures in a row halve it; below
// kMinLength it starts again at 1. The size multiplies the perturbation
// scales and the refinement radius of the later points
// (AcquisitionOptimizer::Options::around_factor): after batches that found
// nothing they refine ever closer to the best trial; while batches improve
// they reach further.
//
// The values given are the current model's posterior means at the ended
// trials, not their observed values: a batch that could not beat one lucky
// noisy observation would count as a failure, and on a noisy objective the
// region would shrink where it should not. Measured in docs/benchmarks.md
// ("Batches of 4: a trust region for the later points"). Pure: no I/O.
class BatchTrustRegion {
 public:
  static constexpr double kMinImprovement = 1e-3;
  static constexpr int kSuccessesToGrow = 3;
  static constexpr double kMaxLength = 2;
  static constexpr double kMinLength = 1.0 / 32;

  // `values`: one per ended trial, in the history's order, larger is
  // better. 1 while no whole batch has ended after the initial design, and
  // for `batch` below 2.
  double Length(std::span<const double> values, int initial, int batch, int dimension) const;
};

}  // namespace vernier::suggest

#endif  // VERNIER_SUGGEST_GP_BATCH_TRUST_REGION_H_
