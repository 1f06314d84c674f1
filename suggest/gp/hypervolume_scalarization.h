#ifndef VERNIER_SUGGEST_GP_HYPERVOLUME_SCALARIZATION_H_
#define VERNIER_SUGGEST_GP_HYPERVOLUME_SCALARIZATION_H_

#include <Eigen/Dense>
#include <random>

namespace vernier::suggest {

// Random hypervolume scalarisations (Golovin and Zhang, "Random
// Hypervolume Scalarizations for Provable Multi-Objective Black Box
// Optimization", 2020), as OSS Vizier's multi-objective GP uses them. For a
// direction w on the positive part of the unit sphere and a reference point
// r (objectives to maximise),
//   s_w(y) = min_i max(0, (y_i - r_i) / w_i)^m,     m objectives,
// and the hypervolume that a set Y dominates above r is, up to a constant
// that depends on m only, the mean over directions of max_{y in Y} s_w(y).
// So the mean over directions of max(0, s_w(y) - max_{Y} s_w) estimates the
// hypervolume that y would add to Y: an acquisition over several objectives
// that rewards filling gaps anywhere on the Pareto front, not only at one
// weighting of the objectives. One objective: s_w(y) = max(0, y - r).
class HypervolumeScalarization {
 public:
  // `directions` draws from the rng (|N(0, I)| normalised: uniform on the
  // positive part of the sphere).
  HypervolumeScalarization(Eigen::VectorXd reference, int directions, std::mt19937_64& rng);

  int objective_count() const { return static_cast<int>(reference_.size()); }
  int direction_count() const { return static_cast<int>(inverse_weights_.cols()); }

  // s_w(y) for every direction.
  Eigen::VectorXd Scalarize(const Eigen::VectorXd& y) const;
  // The best scalarised value per direction of no point at all: zeros.
  Eigen::VectorXd Empty() const { return Eigen::VectorXd::Zero(direction_count()); }
  // best = max(best, s_w(y)) per direction.
  void Include(const Eigen::VectorXd& y, Eigen::VectorXd& best) const;
  // mean_w max(0, s_w(y) - best_w): the estimated hypervolume improvement.
  double Improvement(const Eigen::VectorXd& y, const Eigen::VectorXd& best) const;
  // mean_w s_w(y): how far above the reference point y lies.
  double Mean(const Eigen::VectorXd& y) const;
  // The expected Improvement of y ~ N(mean, diag(deviation^2)), by Monte
  // Carlo over the columns of `normals` (standard normal draws, one row per
  // objective; the same draws for every candidate keep the ranking smooth).
  double ExpectedImprovement(const Eigen::VectorXd& mean, const Eigen::VectorXd& deviation,
                             const Eigen::MatrixXd& normals, const Eigen::VectorXd& best) const;

 private:
  Eigen::VectorXd reference_;
  // m x directions: 1 / w_i per direction.
  Eigen::MatrixXd inverse_weights_;
};

}  // namespace vernier::suggest

#endif  // VERNIER_SUGGEST_GP_HYPERVOLUME_SCALARIZATION_H_
