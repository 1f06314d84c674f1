#include "suggest/gp/acquisition_optimizer.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <numeric>
#include <vector>

#include "suggest/gp/bounded_lbfgs.h"
#include "suggest/random_numbers.h"
#include "suggest/scrambled_halton_sequence.h"

namespace vernier::suggest {
namespace {

// Perturbation scales around an incumbent, in unit-cube widths: half the
// draws near, half a little farther.
constexpr double kNearScale = 0.02;
constexpr double kFarScale = 0.1;
// MaximizeAround's perturbation scales, taken in turn.
constexpr double kAroundScales[] = {0.05, 0.1, 0.2, 0.4};
// MaximizeAround's screened points refined by L-BFGS.
constexpr int kAroundRefined = 2;
// Sweeps of the discrete coordinate search after L-BFGS.
constexpr int kDiscretePasses = 3;

double Finite(double value) {
  return std::isfinite(value) ? value : -std::numeric_limits<double>::infinity();
}

}  // namespace

double AcquisitionOptimizer::Score(const GaussianProcess& model, const Acquisition& acquisition,
                                   const Eigen::VectorXd& point) const {
  Eigen::VectorXd mean;
  Eigen::VectorXd variance;
  model.Predict(point, &mean, &variance);
  double value = acquisition.Value(mean[0], variance[0]);
  if (feasibility_ != nullptr) value += feasibility_->LogWeight(point)[0];
  return Finite(value);
}

std::vector<double> AcquisitionOptimizer::ScoreAll(const GaussianProcess& model,
                                                   const Acquisition& acquisition,
                                                   const Eigen::MatrixXd& points) const {
  Eigen::VectorXd means;
  Eigen::VectorXd variances;
  model.Predict(points, &means, &variances);
  Eigen::VectorXd feasible;
  if (feasibility_ != nullptr) feasible = feasibility_->LogWeight(points);
  std::vector<double> values(points.cols());
  for (Eigen::Index i = 0; i < points.cols(); ++i) {
    double value = acquisition.Value(means[i], variances[i]);
    if (feasibility_ != nullptr) value += feasible[i];
    values[i] = Finite(value);
  }
  return values;
}

Eigen::MatrixXd AcquisitionOptimizer::ScreeningPoints(std::span<const Eigen::VectorXd> incumbents,
                                                      std::mt19937_64& rng) const {
  const int d = encoder_.dimension();
  const int quasi_random =
      options_.screening_points > 0 ? options_.screening_points : std::clamp(50 * d, 300, 1000);
  const int local = static_cast<int>(incumbents.size()) * options_.perturbations_per_incumbent;
  Eigen::MatrixXd points(d, quasi_random + local);
  const ScrambledHaltonSequence sequence(d, rng());
  std::vector<double> unit(d);
  for (int i = 0; i < quasi_random; ++i) {
    sequence.Point(static_cast<uint64_t>(i), unit);
    points.col(i) = encoder_.FromUnit(unit);
  }
  int column = quasi_random;
  for (const Eigen::VectorXd& incumbent : incumbents) {
    for (int k = 0; k < options_.perturbations_per_incumbent; ++k) {
      const double scale = k % 2 == 0 ? kNearScale : kFarScale;
      Eigen::VectorXd point = incumbent;
      for (int j = 0; j < d; ++j) {
        if (encoder_.categorical()[j]) {
          // Another category for about one categorical parameter in d.
          if (UniformIndex(rng, d) == 0) {
            point[j] = static_cast<double>(UniformIndex(rng, encoder_.category_count(j)));
          }
        } else {
          point[j] += scale * StandardNormal(rng);
        }
      }
      points.col(column++) = encoder_.Snap(point);
    }
  }
  return points;
}

AcquisitionOptimizer::Candidate AcquisitionOptimizer::Refine(const GaussianProcess& model,
                                                             const Acquisition& acquisition,
                                                             Eigen::VectorXd start,
                                                             double radius) const {
  const int d = encoder_.dimension();
  Eigen::VectorXd point = std::move(start);
  std::vector<int> free;
  if (encoder_.has_continuous()) {
    // Inactive coordinates stay at their fixed value, and a parent moves
    // only in the coordinate search below (which canonicalises its
    // children), so every point L-BFGS evaluates is a canonical one.
    for (int j = 0; j < d; ++j) {
      if (!encoder_.categorical()[j] && !encoder_.is_parent(j) && !encoder_.IsInactive(point, j)) {
        free.push_back(j);
      }
    }
  }
  if (!free.empty()) {
    const auto m = static_cast<Eigen::Index>(free.size());
    Eigen::VectorXd initial(m);
    for (Eigen::Index i = 0; i < m; ++i) initial[i] = point[free[i]];
    Eigen::VectorXd full = point;
    BoundedLbfgs::Options lbfgs;
    lbfgs.max_evaluations = options_.max_evaluations_per_start;
    const BoundedLbfgs minimizer(lbfgs);
    const BoundedLbfgs::Result result = minimizer.Minimize(
        [&](const Eigen::VectorXd& x, Eigen::VectorXd* gradient) {
          for (Eigen::Index i = 0; i < m; ++i) full[free[i]] = x[i];
          double mean;
          double variance;
          Eigen::VectorXd mean_gradient;
          Eigen::VectorXd variance_gradient;
          model.PredictWithGradient(full, &mean, &variance, &mean_gradient, &variance_gradient);
          double d_mean;
          double d_variance;
          double value = acquisition.ValueWithDerivatives(mean, variance, &d_mean, &d_variance);
          Eigen::VectorXd feasible_gradient;
          if (feasibility_ != nullptr) {
            value += feasibility_->LogWeightWithGradient(full, &feasible_gradient);
          }
          if (gradient != nullptr) {
            gradient->resize(m);
            for (Eigen::Index i = 0; i < m; ++i) {
              (*gradient)[i] =
                  -(d_mean * mean_gradient[free[i]] + d_variance * variance_gradient[free[i]]);
              if (feasibility_ != nullptr) (*gradient)[i] -= feasible_gradient[free[i]];
            }
          }
          return -value;
        },
        initial,
        radius > 0 ? Eigen::VectorXd((initial.array() - radius).max(0.0).matrix())
                   : Eigen::VectorXd(Eigen::VectorXd::Zero(m)),
        radius > 0 ? Eigen::VectorXd((initial.array() + radius).min(1.0).matrix())
                   : Eigen::VectorXd(Eigen::VectorXd::Ones(m)));
    for (Eigen::Index i = 0; i < m; ++i) point[free[i]] = result.point[i];
  }
  point = encoder_.Snap(point);
  double value = Score(model, acquisition, point);
  // Coordinate search over the values L-BFGS cannot reach: other categories,
  // and the neighbouring values of integer and discrete parameters (the
  // continuous optimum may round to the worse side).
  for (int pass = 0; pass < kDiscretePasses; ++pass) {
    bool improved = false;
    for (int j = 0; j < d; ++j) {
      for (double neighbour : encoder_.Neighbours(point, j)) {
        Eigen::VectorXd trial = point;
        trial[j] = neighbour;
        // Children of a changed parent come and go.
        if (encoder_.is_parent(j)) trial = encoder_.Snap(trial);
        const double trial_value = Score(model, acquisition, trial);
        if (trial_value > value) {
          value = trial_value;
          point = std::move(trial);
          improved = true;
        }
      }
    }
    if (!improved) break;
  }
  return {std::move(point), value, {}};
}

std::optional<AcquisitionOptimizer::Candidate> AcquisitionOptimizer::BestUnused(
    std::vector<Candidate> candidates, const absl::flat_hash_set<std::string>& used) const {
  // Best first; equal values keep their order, so the result is deterministic.
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Candidate& a, const Candidate& b) { return a.value > b.value; });
  for (Candidate& candidate : candidates) {
    if (!std::isfinite(candidate.value)) break;
    candidate.parameters = encoder_.Decode(candidate.point);
    if (!used.contains(SearchSpace::Key(candidate.parameters))) return std::move(candidate);
  }
  return std::nullopt;
}

std::optional<AcquisitionOptimizer::Candidate> AcquisitionOptimizer::Maximize(
    const GaussianProcess& model, const Acquisition& acquisition,
    std::span<const Eigen::VectorXd> incumbents, const absl::flat_hash_set<std::string>& used,
    std::mt19937_64& rng) const {
  const Eigen::MatrixXd screening = ScreeningPoints(incumbents, rng);
  const std::vector<double> values = ScoreAll(model, acquisition, screening);
  std::vector<Candidate> candidates;
  candidates.reserve(screening.cols() + options_.local_starts);
  for (Eigen::Index i = 0; i < screening.cols(); ++i) {
    candidates.push_back({screening.col(i), values[i], {}});
  }
  std::vector<int> order(candidates.size());
  std::iota(order.begin(), order.end(), 0);
  const int starts = std::min<int>(options_.local_starts, static_cast<int>(order.size()));
  std::partial_sort(order.begin(), order.begin() + starts, order.end(),
                    [&](int a, int b) { return candidates[a].value > candidates[b].value; });
  for (int s = 0; s < starts; ++s) {
    candidates.push_back(Refine(model, acquisition, candidates[order[s]].point));
  }
  return BestUnused(std::move(candidates), used);
}

std::optional<AcquisitionOptimizer::Candidate> AcquisitionOptimizer::MaximizeAround(
    const GaussianProcess& model, const Acquisition& acquisition,
    std::span<const Eigen::VectorXd> centres, const absl::flat_hash_set<std::string>& used,
    std::mt19937_64& rng) const {
  const int count = options_.around_points;
  if (centres.empty() || count <= 0) return std::nullopt;
  const int d = encoder_.dimension();
  constexpr size_t kScaleCount = std::size(kAroundScales);
  Eigen::MatrixXd points(d, count);
  for (int i = 0; i < count; ++i) {
    Eigen::VectorXd point = centres[i % centres.size()];
    const double scale = options_.around_factor * kAroundScales[(i / centres.size()) % kScaleCount];
    for (int j = 0; j < d; ++j) {
      if (encoder_.categorical()[j]) {
        if (UniformIndex(rng, d) == 0) {
          point[j] = static_cast<double>(UniformIndex(rng, encoder_.category_count(j)));
        }
      } else if (!encoder_.IsInactive(point, j)) {
        point[j] += scale * StandardNormal(rng);
      }
    }
    points.col(i) = encoder_.Snap(point);
  }
  const std::vector<double> values = ScoreAll(model, acquisition, points);
  std::vector<Candidate> screened;
  screened.reserve(count);
  for (int i = 0; i < count; ++i) screened.push_back({points.col(i), values[i], {}});
  std::vector<int> order(count);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&screened](int a, int b) { return screened[a].value > screened[b].value; });
  std::vector<Candidate> candidates;
  candidates.reserve(count + kAroundRefined);
  for (int s = 0; s < kAroundRefined && s < count; ++s) {
    candidates.push_back(Refine(model, acquisition, screened[order[s]].point,
                                options_.around_factor * options_.around_radius));
  }
  for (int i : order) candidates.push_back(std::move(screened[i]));
  return BestUnused(std::move(candidates), used);
}

}  // namespace vernier::suggest
