#include "suggest/gp/jittered_cholesky.h"

#include <cmath>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"

namespace vernier::suggest {
namespace {

constexpr double kFirstRelativeJitter = 1e-10;
constexpr double kLastRelativeJitter = 1e-3;

}  // namespace

absl::StatusOr<JitteredCholesky> JitteredCholesky::Factor(const Eigen::MatrixXd& matrix) {
  if (matrix.rows() != matrix.cols()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "Cholesky of a %d x %d matrix: it must be square", matrix.rows(), matrix.cols()));
  }
  if (!matrix.allFinite()) {
    return absl::FailedPreconditionError("Cholesky: the matrix has a non-finite entry");
  }
  const Eigen::Index n = matrix.rows();
  const double scale = n == 0 ? 1.0 : std::max(matrix.diagonal().mean(), 1e-300);
  double jitter = 0.0;
  Eigen::MatrixXd work;
  while (true) {
    work = matrix;
    work.diagonal().array() += jitter;
    Eigen::LLT<Eigen::Ref<Eigen::MatrixXd>> llt(work);
    if (llt.info() == Eigen::Success) {
      work.triangularView<Eigen::StrictlyUpper>().setZero();
      return JitteredCholesky(std::move(work), jitter);
    }
    if (jitter >= kLastRelativeJitter * scale) break;
    jitter = jitter == 0.0 ? kFirstRelativeJitter * scale : jitter * 10;
  }
  return absl::FailedPreconditionError(absl::StrFormat(
      "Cholesky: the %d x %d covariance stays indefinite with jitter %g on its diagonal", n, n,
      jitter));
}

}  // namespace vernier::suggest
