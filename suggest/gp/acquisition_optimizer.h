#ifndef VERNIER_SUGGEST_GP_ACQUISITION_OPTIMIZER_H_
#define VERNIER_SUGGEST_GP_ACQUISITION_OPTIMIZER_H_

#include <Eigen/Dense>
#include <optional>
#include <random>
#include <span>
#include <string>

#include "absl/container/flat_hash_set.h"
#include "suggest/gp/gaussian_process.h"
#include "suggest/gp/gp_input_encoder.h"
#include "suggest/gp/log_expected_improvement.h"
#include "suggest/search_space.h"

namespace vernier::suggest {

// Finds the point of the search space with the highest log expected
// improvement under a Gaussian process:
// 1. screening: quasi-random points over the whole space plus perturbations
//    of the best observed points, all snapped to points the space can take,
//    scored in one batch;
// 2. the best few become starts of L-BFGS over the continuous coordinates
//    (analytic gradients; categorical coordinates held), then snapping and a
//    coordinate search over other categories and neighbouring integer and
//    discrete values;
// 3. the best point, optimised or screened, whose decoded parameters are
//    not already used wins, so a study never sees the same point twice.
class AcquisitionOptimizer {
 public:
  struct Options {
    // Quasi-random screening points; 0 picks by dimension.
    int screening_points = 0;
    // Perturbations around each of the best observed points.
    int perturbations_per_incumbent = 40;
    int local_starts = 4;
    int max_evaluations_per_start = 40;
  };

  struct Candidate {
    Eigen::VectorXd point;
    double value;
    ParameterAssignment parameters;
  };

  AcquisitionOptimizer(const GpInputEncoder& encoder, Options options)
      : encoder_(encoder), options_(options) {}

  // `incumbents` are the best observed model points (perturbed during
  // screening). nullopt when every candidate found is in `used`.
  std::optional<Candidate> Maximize(const GaussianProcess& model,
                                    const LogExpectedImprovement& acquisition,
                                    std::span<const Eigen::VectorXd> incumbents,
                                    const absl::flat_hash_set<std::string>& used,
                                    std::mt19937_64& rng) const;

 private:
  double Score(const GaussianProcess& model, const LogExpectedImprovement& acquisition,
               const Eigen::VectorXd& point) const;
  // L-BFGS over the continuous coordinates, snapping, then the coordinate
  // search over discrete values.
  Candidate Refine(const GaussianProcess& model, const LogExpectedImprovement& acquisition,
                   Eigen::VectorXd start) const;
  Eigen::MatrixXd ScreeningPoints(std::span<const Eigen::VectorXd> incumbents,
                                  std::mt19937_64& rng) const;

  const GpInputEncoder& encoder_;
  Options options_;
};

}  // namespace vernier::suggest

#endif  // VERNIER_SUGGEST_GP_ACQUISITION_OPTIMIZER_H_
