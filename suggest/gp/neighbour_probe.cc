#include "suggest/gp/neighbour_probe.h"

#include <cmath>
#include <utility>

#include "suggest/search_space.h"

namespace vernier::suggest {

bool NeighbourProbe::Tried(const Eigen::VectorXd& point, const Eigen::MatrixXd& tried) const {
  const int d = encoder_.dimension();
  for (Eigen::Index t = 0; t < tried.cols(); ++t) {
    const Eigen::VectorXd other = tried.col(t);
    bool near = true;
    for (int j = 0; j < d && near; ++j) {
      const bool continuous =
          encoder_.space().parameters()[j].type() == v1::ParameterSpec::DOUBLE &&
          !encoder_.IsInactive(point, j) && !encoder_.IsInactive(other, j);
      near = continuous ? std::abs(point[j] - other[j]) <= kRadius : point[j] == other[j];
    }
    if (near) return true;
  }
  return false;
}

std::optional<AcquisitionOptimizer::Candidate> NeighbourProbe::Best(
    const GaussianProcess& model, const Acquisition& acquisition, const Eigen::VectorXd& incumbent,
    const Eigen::MatrixXd& tried, const absl::flat_hash_set<std::string>& used,
    const FeasibilityModel* feasibility) const {
  std::optional<AcquisitionOptimizer::Candidate> best;
  for (int j = 0; j < encoder_.dimension(); ++j) {
    for (double neighbour : encoder_.Neighbours(incumbent, j)) {
      Eigen::VectorXd point = incumbent;
      point[j] = neighbour;
      // Children of a changed parent come and go.
      point = encoder_.Snap(point);
      if (Tried(point, tried)) continue;
      ParameterAssignment parameters = encoder_.Decode(point);
      if (used.contains(SearchSpace::Key(parameters))) continue;
      Eigen::VectorXd mean;
      Eigen::VectorXd variance;
      model.Predict(point, &mean, &variance);
      double value = acquisition.Value(mean[0], variance[0]);
      if (feasibility != nullptr) value += feasibility->LogWeight(point)[0];
      if (!std::isfinite(value)) continue;
      if (!best.has_value() || value > best->value) {
        best = AcquisitionOptimizer::Candidate{std::move(point), value, std::move(parameters)};
      }
    }
  }
  return best;
}

}  // namespace vernier::suggest
