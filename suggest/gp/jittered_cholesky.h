#ifndef VERNIER_SUGGEST_GP_JITTERED_CHOLESKY_H_
#define VERNIER_SUGGEST_GP_JITTERED_CHOLESKY_H_

#include <Eigen/Dense>

#include "absl/status/statusor.h"

namespace vernier::suggest {

// The Cholesky factor L (lower) of a symmetric matrix A that should be
// positive definite but may not be numerically (duplicate points, tiny
// noise): when A = L L^T fails, jitter * I is added to A, starting at
// 1e-10 times the mean diagonal and growing tenfold per retry up to 1e-3
// times it.
class JitteredCholesky {
 public:
  // FAILED_PRECONDITION when A has a non-finite entry or even the largest
  // jitter leaves it indefinite.
  static absl::StatusOr<JitteredCholesky> Factor(const Eigen::MatrixXd& matrix);

  const Eigen::MatrixXd& lower() const { return lower_; }
  Eigen::MatrixXd& lower() { return lower_; }
  // What was added to the diagonal; 0 when A factored as it was.
  double jitter() const { return jitter_; }
  // (L L^T)^-1 = L^-T L^-1, in its lower triangle (the diagonal included);
  // the strict upper triangle is 0. Blocked so that the zeros of L^-1 cost
  // nothing: about n^3 / 3 multiply-adds, a third of inverting L against
  // the identity and multiplying the two full squares.
  Eigen::MatrixXd InverseLowerTriangle() const;

 private:
  JitteredCholesky(Eigen::MatrixXd lower, double jitter)
      : lower_(std::move(lower)), jitter_(jitter) {}
  Eigen::MatrixXd lower_;
  double jitter_;
};

}  // namespace vernier::suggest

#endif  // VERNIER_SUGGEST_GP_JITTERED_CHOLESKY_H_
