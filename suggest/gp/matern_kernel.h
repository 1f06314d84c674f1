#ifndef VERNIER_SUGGEST_GP_MATERN_KERNEL_H_
#define VERNIER_SUGGEST_GP_MATERN_KERNEL_H_

#include <Eigen/Dense>
#include <vector>

namespace vernier::suggest {

// The Matérn-5/2 covariance with one length scale per dimension (ARD):
//   k(a, b) = s * (1 + sqrt(5) r + 5/3 r^2) * exp(-sqrt(5) r),
//   r^2 = sum_j d_j(a_j, b_j) / l_j^2,
// with s the signal variance. A continuous dimension has d_j = (a_j - b_j)^2;
// a categorical dimension holds a category index and has d_j = 0 for the
// same category and 1 for another. That is the squared distance of one-hot
// vectors (halved), so k stays positive definite, and every category is
// equally far from every other, as an unordered choice should be.
//
// Points are the columns of a d x n matrix.
class MaternKernel {
 public:
  MaternKernel(std::vector<bool> categorical, Eigen::VectorXd length_scales,
               double signal_variance);

  int dimension() const { return static_cast<int>(categorical_.size()); }
  const std::vector<bool>& categorical() const { return categorical_; }
  const Eigen::VectorXd& length_scales() const { return length_scales_; }
  double signal_variance() const { return signal_variance_; }

  // (1 + sqrt(5) r + 5/3 r^2) exp(-sqrt(5) r) at r^2 = squared_distance.
  static double Shape(double squared_distance);
  // -2 dShape/d(r^2) = 5/3 (1 + sqrt(5) r) exp(-sqrt(5) r): d k / d(log l_j)
  // is s * ShapeSlope * d_j / l_j^2.
  static double ShapeSlope(double squared_distance);

  // The scaled squared distance r^2 between two points.
  double SquaredDistance(const double* a, const double* b) const;
  double Covariance(const double* a, const double* b) const;
  // n x n for the columns of `points`.
  Eigen::MatrixXd Covariance(const Eigen::MatrixXd& points) const;
  // n x m: rows the columns of `points`, columns those of `others`.
  Eigen::MatrixXd CrossCovariance(const Eigen::MatrixXd& points,
                                  const Eigen::MatrixXd& others) const;
  // k(x, p_i) for every column p_i into `covariance` (n), and its gradient
  // in x into `gradient` (n x d; categorical columns are 0).
  void CrossCovarianceWithGradient(const Eigen::VectorXd& x, const Eigen::MatrixXd& points,
                                   Eigen::VectorXd* covariance, Eigen::MatrixXd* gradient) const;

 private:
  // The scaled squared distance from `x` (d values) to every row of
  // `by_dimension` (n x d: one point per row, so that a dimension's
  // coordinates are contiguous) into `squared` (n): for every point the
  // very sum SquaredDistance makes, in the same order, for all n at once.
  void SquaredDistances(const Eigen::MatrixXd& by_dimension, const double* x,
                        Eigen::ArrayXd* squared) const;

  std::vector<bool> categorical_;
  Eigen::VectorXd length_scales_;
  Eigen::VectorXd inverse_squared_length_scales_;
  double signal_variance_;
};

}  // namespace vernier::suggest

#endif  // VERNIER_SUGGEST_GP_MATERN_KERNEL_H_
