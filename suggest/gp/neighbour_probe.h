#ifndef VERNIER_SUGGEST_GP_NEIGHBOUR_PROBE_H_
#define VERNIER_SUGGEST_GP_NEIGHBOUR_PROBE_H_

#include <Eigen/Dense>
#include <optional>
#include <string>

#include "absl/container/flat_hash_set.h"
#include "suggest/gp/acquisition.h"
#include "suggest/gp/acquisition_optimizer.h"
#include "suggest/gp/feasibility_model.h"
#include "suggest/gp/gaussian_process.h"
#include "suggest/gp/gp_input_encoder.h"

namespace vernier::suggest {

// The best trial's untried one-step neighbours in its discrete coordinates,
// for an exploration step (or a stalled batch's last point) in a space with
// CATEGORICAL, INTEGER or DISCRETE parameters.
//
// Why: on a conditional or mixed space the model compares trials only
// coordinate by coordinate, so it cannot tell that a sibling branch tried
// only at poor values of its own children (adam at learning rates of 1e-5
// and 0.1, say) might beat the best trial's branch at moderate ones, or
// that an integer one step from the best trial's (4 layers instead of 3)
// is worth one try. Expected improvement over the whole box then sends the
// exploration steps to the box's corners, where the model is least sure,
// and the search refines its branch to the sixth digit. A neighbour of the
// best trial (one parameter changed to another category or to the next
// integer or discrete value; children that become active start at the
// middle of their range, as GpInputEncoder::Snap puts them) is what a
// person would try next.
//
// A neighbour counts as tried when some trial sits in its discrete cell
// (every CATEGORICAL, INTEGER and DISCRETE coordinate equal, the same
// parameters active) within kRadius of it in every active DOUBLE
// coordinate: so a branch tried only at poor values of its children is
// still probed once, near the best trial, and a best trial that moves a
// little as the search refines it does not make its neighbours new again.
// Among the untried neighbours the one with the highest acquisition wins.
// Pure: no I/O, no randomness.
class NeighbourProbe {
 public:
  // Unit-cube widths, per DOUBLE coordinate.
  static constexpr double kRadius = 0.1;

  explicit NeighbourProbe(const GpInputEncoder& encoder) : encoder_(encoder) {}

  // The untried neighbour of `incumbent` (a snapped model point) with the
  // highest acquisition, its parameters decoded; nullopt when every
  // neighbour is tried or `used` (keys of SearchSpace::Key) holds it, or
  // the space has no discrete coordinate. `tried`: the trials' model
  // points, one per column. With `feasibility`, its LogWeight is added to
  // the acquisition, as AcquisitionOptimizer adds it.
  std::optional<AcquisitionOptimizer::Candidate> Best(
      const GaussianProcess& model, const Acquisition& acquisition,
      const Eigen::VectorXd& incumbent, const Eigen::MatrixXd& tried,
      const absl::flat_hash_set<std::string>& used,
      const FeasibilityModel* feasibility = nullptr) const;
  // Whether some column of `tried` is in `point`'s discrete cell and within
  // kRadius of it in every active DOUBLE coordinate.
  bool Tried(const Eigen::VectorXd& point, const Eigen::MatrixXd& tried) const;

 private:
  const GpInputEncoder& encoder_;
};

}  // namespace vernier::suggest

#endif  // VERNIER_SUGGEST_GP_NEIGHBOUR_PROBE_H_
