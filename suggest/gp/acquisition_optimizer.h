#ifndef VERNIER_SUGGEST_GP_ACQUISITION_OPTIMIZER_H_
#define VERNIER_SUGGEST_GP_ACQUISITION_OPTIMIZER_H_

#include <Eigen/Dense>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "suggest/gp/acquisition.h"
#include "suggest/gp/feasibility_model.h"
#include "suggest/gp/gaussian_process.h"
#include "suggest/gp/gp_input_encoder.h"
#include "suggest/search_space.h"

namespace vernier::suggest {

// Finds the point of the search space where an acquisition function (log
// expected improvement, an upper confidence bound) of a Gaussian process's
// posterior is highest:
// 1. screening: quasi-random points over the whole space plus perturbations
//    of the best observed points, all snapped to points the space can take,
//    scored in one batch;
// 2. the best few become starts of L-BFGS over the continuous coordinates
//    (analytic gradients; categorical coordinates held), then snapping and a
//    coordinate search over other categories and neighbouring integer and
//    discrete values;
// 3. the best point, optimised or screened, whose decoded parameters are
//    not already used wins, so a study never sees the same point twice.
// MaximizeAround searches the neighbourhoods of given points only, for the
// points of a batch after its first.
class AcquisitionOptimizer {
 public:
  struct Options {
    // Quasi-random screening points; 0 picks by dimension.
    int screening_points = 0;
    // Perturbations around each of the best observed points.
    int perturbations_per_incumbent = 40;
    int local_starts = 4;
    int max_evaluations_per_start = 40;
    // MaximizeAround: perturbations screened, and how far (in unit-cube
    // widths, per coordinate) L-BFGS may move the best of them.
    int around_points = 600;
    double around_radius = 0.1;
    // Multiplies MaximizeAround's perturbation scales and its radius: a
    // batch's trust region (BatchTrustRegion) sets it.
    double around_factor = 1;
  };

  struct Candidate {
    Eigen::VectorXd point;
    double value;
    ParameterAssignment parameters;
  };

  // With `feasibility`, every acquisition value has its LogWeight added
  // (for log expected improvement: expected improvement times a power of
  // the chance that the point's trial ends with a value).
  AcquisitionOptimizer(const GpInputEncoder& encoder, Options options,
                       const FeasibilityModel* feasibility = nullptr)
      : encoder_(encoder), options_(options), feasibility_(feasibility) {}

  // `incumbents` are the best observed model points (perturbed during
  // screening). nullopt when every candidate found is in `used`.
  std::optional<Candidate> Maximize(const GaussianProcess& model, const Acquisition& acquisition,
                                    std::span<const Eigen::VectorXd> incumbents,
                                    const absl::flat_hash_set<std::string>& used,
                                    std::mt19937_64& rng) const;

  // The best point by `acquisition` among perturbations of `centres` only
  // (each continuous coordinate moved by a normal draw of 0.05, 0.1, 0.2 or
  // 0.4 unit-cube widths times `around_factor`, the scales taken in turn;
  // another category for about one categorical parameter in d), the best
  // two refined by L-BFGS within `around_radius` x `around_factor` of where
  // they are. Not in `used`; nullopt when every candidate is.
  std::optional<Candidate> MaximizeAround(const GaussianProcess& model,
                                          const Acquisition& acquisition,
                                          std::span<const Eigen::VectorXd> centres,
                                          const absl::flat_hash_set<std::string>& used,
                                          std::mt19937_64& rng) const;

 private:
  double Score(const GaussianProcess& model, const Acquisition& acquisition,
               const Eigen::VectorXd& point) const;
  // L-BFGS over the continuous coordinates, each moving at most `radius`
  // from `start` (0: anywhere in the box), snapping, then the coordinate
  // search over discrete values.
  Candidate Refine(const GaussianProcess& model, const Acquisition& acquisition,
                   Eigen::VectorXd start, double radius = 0.0) const;
  // The best candidate by value whose decoded parameters are not in `used`
  // (decoded into it), or nullopt.
  std::optional<Candidate> BestUnused(std::vector<Candidate> candidates,
                                      const absl::flat_hash_set<std::string>& used) const;
  Eigen::MatrixXd ScreeningPoints(std::span<const Eigen::VectorXd> incumbents,
                                  std::mt19937_64& rng) const;

  // The acquisition's values at the columns of `points`, each with the
  // feasibility's LogWeight added.
  std::vector<double> ScoreAll(const GaussianProcess& model, const Acquisition& acquisition,
                               const Eigen::MatrixXd& points) const;

  const GpInputEncoder& encoder_;
  Options options_;
  const FeasibilityModel* feasibility_;
};

}  // namespace vernier::suggest

#endif  // VERNIER_SUGGEST_GP_ACQUISITION_OPTIMIZER_H_
