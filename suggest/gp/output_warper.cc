#include "suggest/gp/output_warper.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>
#include <vector>

namespace vernier::suggest {
namespace {

// Inverse of the standard normal CDF, p in (0, 1): Acklam's rational
// approximation (relative error 1.2e-9), plenty for ranks.
double NormalQuantile(double p) {
  static constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                                 -2.759285104469687e+02, 1.383577518672690e+02,
                                 -3.066479806614716e+01, 2.506628277459239e+00};
  static constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
                                 -1.556989798598866e+02, 6.680131188771972e+01,
                                 -1.328068155288572e+01};
  static constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                                 -2.400758277161838e+00, -2.549732539343734e+00,
                                 4.374664141464968e+00,  2.938163982698783e+00};
  static constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
                                 2.445134137142996e+00, 3.754408661907416e+00};
  constexpr double low = 0.02425;
  if (p < low) {
    const double q = std::sqrt(-2 * std::log(p));
    return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
           ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  if (p > 1 - low) return -NormalQuantile(1 - p);
  const double q = p - 0.5;
  const double r = q * q;
  return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
         (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

double Median(std::vector<double> values) {
  const size_t middle = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + middle, values.end());
  const double upper = values[middle];
  if (values.size() % 2 == 1) return upper;
  return 0.5 * (upper + *std::max_element(values.begin(), values.begin() + middle));
}

}  // namespace

void OutputWarper::HalfRankWarp(Eigen::VectorXd& values) {
  const Eigen::Index n = values.size();
  const double median = Median(std::vector<double>(values.data(), values.data() + n));
  // The spread of the good half, as a normal's standard deviation.
  double squares = 0.0;
  int upper_count = 0;
  for (double v : values) {
    if (v >= median) {
      squares += (v - median) * (v - median);
      ++upper_count;
    }
  }
  const double spread = std::sqrt(squares / std::max(upper_count, 1));
  if (!(spread > 0.0)) return;
  const Eigen::VectorXd ranks = Ranks(values);
  for (Eigen::Index i = 0; i < n; ++i) {
    if (values[i] < median) {
      const double quantile = (ranks[i] + 0.5) / static_cast<double>(n);
      values[i] = median + spread * NormalQuantile(quantile);
    }
  }
  // Warped below-median values stay below the median (quantile < 1/2).
}

Eigen::VectorXd OutputWarper::Ranks(const Eigen::VectorXd& values) {
  const Eigen::Index n = values.size();
  std::vector<Eigen::Index> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&values](Eigen::Index a, Eigen::Index b) { return values[a] < values[b]; });
  Eigen::VectorXd ranks(n);
  for (Eigen::Index first = 0; first < n;) {
    Eigen::Index last = first;
    while (last + 1 < n && values[order[last + 1]] == values[order[first]]) ++last;
    const double rank = 0.5 * static_cast<double>(first + last);
    for (Eigen::Index i = first; i <= last; ++i) ranks[order[i]] = rank;
    first = last + 1;
  }
  return ranks;
}

void OutputWarper::ClipLowerTail(Eigen::VectorXd& values) {
  const Eigen::Index n = values.size();
  const double median = Median(std::vector<double>(values.data(), values.data() + n));
  // The worse half's own centre and robust spread: many values tied at the
  // good end (points at one objective's best) leave the whole sample's
  // spread small, but not the worse half's.
  std::vector<double> lower;
  for (double v : values) {
    if (v <= median) lower.push_back(v);
  }
  const double centre = Median(lower);
  std::vector<double> deviations;
  deviations.reserve(lower.size());
  for (double v : lower) deviations.push_back(std::abs(v - centre));
  double spread = 1.4826 * Median(deviations);
  if (!(spread > 0.0)) {
    // More than half the worse half ties at its centre.
    double sum = 0.0;
    for (double deviation : deviations) sum += deviation;
    spread = sum / static_cast<double>(deviations.size());
  }
  if (!(spread > 0.0) || !std::isfinite(spread)) return;
  const double floor = centre - kClipSpreads * spread;
  for (double& v : values) v = std::max(v, floor);
}

Eigen::VectorXd OutputWarper::Warp(std::span<const std::optional<double>> values) const {
  std::vector<double> present;
  for (const std::optional<double>& value : values) {
    if (value.has_value()) present.push_back(*value);
  }
  Eigen::VectorXd warped = Eigen::Map<const Eigen::VectorXd>(present.data(), present.size());
  double missing_value = -1.0;
  if (warped.size() > 0) {
    if (lower_ == Lower::kClipped) {
      ClipLowerTail(warped);
    } else {
      HalfRankWarp(warped);
    }
    const double mean = warped.mean();
    const double deviation = std::sqrt((warped.array() - mean).square().mean());
    if (deviation > 0.0 && std::isfinite(deviation)) {
      warped = (warped.array() - mean) / deviation;
      missing_value = warped.minCoeff() - kMissingPenalty;
    } else {
      warped.setZero();
    }
  }
  Eigen::VectorXd result(values.size());
  Eigen::Index next = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    result[i] = values[i].has_value() ? warped[next++] : missing_value;
  }
  return result;
}

}  // namespace vernier::suggest
