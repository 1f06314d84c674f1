#ifndef VERNIER_SUGGEST_GP_GAUSSIAN_PROCESS_H_
#define VERNIER_SUGGEST_GP_GAUSSIAN_PROCESS_H_

#include <Eigen/Dense>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "suggest/gp/input_warp.h"
#include "suggest/gp/matern_kernel.h"

namespace vernier::suggest {

// The posterior of a zero-mean Gaussian process with Gaussian observation
// noise, given observations (points as the columns of a d x n matrix,
// values standardised). Predictions are of the latent function, without the
// noise. Holds the Cholesky factor of K + noise * I, so one more
// observation (a pending trial's fantasy) costs O(n^2), not a new
// factorisation.
//
// With an input warp (InputWarp; the identity by default) the kernel
// compares warped coordinates: the observations are held warped, and every
// point a method takes is in the encoder's coordinates and warped on the
// way in (gradients through the warp's slope).
class GaussianProcess {
 public:
  // FAILED_PRECONDITION when the covariance cannot be factored even with
  // jitter (see JitteredCholesky).
  static absl::StatusOr<GaussianProcess> Create(MaternKernel kernel, double noise_variance,
                                                Eigen::MatrixXd points, Eigen::VectorXd values,
                                                InputWarp warp = InputWarp());
  // With a noise variance per observation (`noise_variances`, one per
  // column of `points`): observations that stand for several trials
  // (HistoryFolder) are less noisy than one. `noise_variance` is the noise
  // of one new observation (noise_variance()).
  static absl::StatusOr<GaussianProcess> Create(MaternKernel kernel, double noise_variance,
                                                const Eigen::VectorXd& noise_variances,
                                                Eigen::MatrixXd points, Eigen::VectorXd values,
                                                InputWarp warp = InputWarp());
  // With a full noise covariance (`noise_covariance`, symmetric positive
  // semi-definite, one row and column per column of `points`): observations
  // whose errors are correlated, as the pseudo-observations of a projected
  // history are (HistoryProjector). Observations added later
  // (AddObservation) have errors of their own, uncorrelated with these.
  static absl::StatusOr<GaussianProcess> CreateWithNoiseCovariance(
      MaternKernel kernel, double noise_variance, const Eigen::MatrixXd& noise_covariance,
      Eigen::MatrixXd points, Eigen::VectorXd values, InputWarp warp = InputWarp());

  int size() const { return static_cast<int>(points_.cols()); }
  const MaternKernel& kernel() const { return kernel_; }
  double noise_variance() const { return noise_variance_; }
  double jitter() const { return jitter_; }

  // Posterior mean and variance at the columns of `points`.
  void Predict(const Eigen::MatrixXd& points, Eigen::VectorXd* mean,
               Eigen::VectorXd* variance) const;
  // Posterior mean only, at the columns of `points` (no triangular solve).
  Eigen::VectorXd PredictMean(const Eigen::MatrixXd& points) const;
  // At one point, with the gradients in its coordinates (categorical
  // coordinates get 0).
  void PredictWithGradient(const Eigen::VectorXd& x, double* mean, double* variance,
                           Eigen::VectorXd* mean_gradient,
                           Eigen::VectorXd* variance_gradient) const;
  // The posterior mean at the observed points: y - noise * K^-1 y.
  Eigen::VectorXd MeanAtObservations() const;
  // Leave-one-out at every observation (Rasmussen and Williams 2006,
  // 5.4.2): how far its value lies from what the others predict there,
  // y_i - mean_-i = [C^-1 y]_i / [C^-1]_ii, and that prediction's variance
  // noise included, 1 / [C^-1]_ii, with C = K + noise. O(n^3 / 3).
  void LeaveOneOut(Eigen::VectorXd* residuals, Eigen::VectorXd* variances) const;

  // Conditions on one more observation by extending the Cholesky factor,
  // with its own noise variance: a fantasy (a pending trial's believed
  // value) is conditioned on with none, so the variance there collapses and
  // the next point of a batch goes elsewhere.
  void AddObservation(const Eigen::VectorXd& x, double value, double noise_variance);

 private:
  // K + diag(noise_variances) + off_diagonal_noise (empty: none) factored.
  static absl::StatusOr<GaussianProcess> Factor(MaternKernel kernel, double noise_variance,
                                                const Eigen::VectorXd& noise_variances,
                                                Eigen::MatrixXd off_diagonal_noise,
                                                Eigen::MatrixXd points, Eigen::VectorXd values,
                                                InputWarp warp);
  GaussianProcess(MaternKernel kernel, InputWarp warp, double noise_variance, double jitter,
                  Eigen::MatrixXd points, Eigen::VectorXd values, Eigen::VectorXd diagonal_noise,
                  Eigen::MatrixXd off_diagonal_noise, Eigen::MatrixXd lower);
  void UpdateWeights();
  // k(observations, columns of `points`), `points` warped on the way in.
  Eigen::MatrixXd CrossCovarianceTo(const Eigen::MatrixXd& points) const;

  MaternKernel kernel_;
  InputWarp warp_;
  double noise_variance_;
  double jitter_;
  // Warped.
  Eigen::MatrixXd points_;
  Eigen::VectorXd values_;
  // Per observation: noise + jitter on the diagonal.
  Eigen::VectorXd diagonal_noise_;
  // The noise covariance's off-diagonal part among the first observations
  // (those Create was given with a full covariance; empty otherwise).
  Eigen::MatrixXd off_diagonal_noise_;
  // L with L L^T = K + diag(diagonal_noise) + off_diagonal_noise.
  Eigen::MatrixXd lower_;
  // (K + (noise + jitter) I)^-1 y.
  Eigen::VectorXd weights_;
};

}  // namespace vernier::suggest

#endif  // VERNIER_SUGGEST_GP_GAUSSIAN_PROCESS_H_
