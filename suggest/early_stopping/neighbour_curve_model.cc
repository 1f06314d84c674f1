#include "suggest/early_stopping/neighbour_curve_model.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <utility>

#include "absl/strings/str_format.h"
#include "suggest/early_stopping/neighbour_fit_cache.h"

namespace vernier::suggest {
namespace {

// The median absolute deviation from the median, scaled to a normal's
// standard deviation; the values must not be empty.
double RobustSpread(const std::vector<double>& values) {
  const double middle = Median(values);
  std::vector<double> deviations;
  deviations.reserve(values.size());
  for (double value : values) deviations.push_back(std::abs(value - middle));
  return 1.4826 * Median(std::move(deviations));
}

}  // namespace

NeighbourCurveModel::Curve NeighbourCurveModel::Prepare(const LearningCurve& curve) const {
  StepValues by_step = ValuesByStep(curve);
  const double sign = goal_ == v1::MetricSpec::MINIMIZE ? 1 : -1;
  Curve prepared;
  prepared.steps = std::move(by_step.steps);
  prepared.values = std::move(by_step.values);
  for (double& value : prepared.values) value *= sign;
  Summarise(prepared);
  return prepared;
}

void NeighbourCurveModel::Summarise(Curve& curve) {
  curve.prefix_sums.assign(1, 0);
  curve.running_best.clear();
  for (double value : curve.values) {
    curve.running_best.push_back(
        curve.running_best.empty() ? value : std::min(curve.running_best.back(), value));
    curve.prefix_sums.push_back(curve.prefix_sums.back() + value);
  }
}

double NeighbourCurveModel::LogDistance(double value, const Fitted& fitted) {
  return std::log(std::max(value - fitted.bound, fitted.floor));
}

void NeighbourCurveModel::ToModelUnits(Curve& curve, const Fitted& fitted) {
  if (!fitted.log_scale) return;
  for (double& value : curve.values) value = LogDistance(value, fitted);
  Summarise(curve);
  curve.final_best = LogDistance(curve.final_best, fitted);
}

void NeighbourCurveModel::ChooseScale(Fitted& fitted, double least, double most) {
  fitted.model_noise = fitted.noise;
  if (fitted.finished.empty() || !AreCountValues(fitted.noise, fitted.lattice)) return;
  // An error count or rate (>= 0), or in minimised form an accuracy (in
  // [-1, 0]: its best is 1) or an accuracy in percent (in [-100, -1): every
  // value above 1%, so that an accuracy of one whose noisy reports pass 1
  // is not taken for one).
  if (least >= 0) {
    fitted.bound = 0;
  } else if (least >= -1 && most <= 0) {
    fitted.bound = -1;
  } else if (least >= -100 && most < -1) {
    fitted.bound = -100;
  } else {
    return;
  }
  fitted.log_scale = true;
  fitted.floor = fitted.lattice / 2;
}

StepValues NeighbourCurveModel::InModelUnits(StepValues values) const {
  if (!fitted_->log_scale) return values;
  const double sign = goal_ == v1::MetricSpec::MINIMIZE ? 1 : -1;
  for (double& value : values.values) value = LogDistance(sign * value, *fitted_);
  return values;
}

std::pair<double, int> NeighbourCurveModel::WindowMean(const Curve& curve, int64_t from,
                                                       int64_t to) {
  const auto begin = std::upper_bound(curve.steps.begin(), curve.steps.end(), from);
  const auto end = std::upper_bound(curve.steps.begin(), curve.steps.end(), to);
  const int count = static_cast<int>(end - begin);
  if (count <= 0) return {0, 0};
  const size_t first = begin - curve.steps.begin();
  const size_t last = end - curve.steps.begin();
  return {(curve.prefix_sums[last] - curve.prefix_sums[first]) / count, count};
}

std::optional<NeighbourCurveModel::Features> NeighbourCurveModel::FeaturesAt(const Curve& curve,
                                                                             int64_t step) const {
  const auto end = std::upper_bound(curve.steps.begin(), curve.steps.end(), step);
  if (end == curve.steps.begin()) return std::nullopt;
  const int64_t width = std::max<int64_t>(1, step / 4);
  const auto [level, level_count] = WindowMean(curve, step - width, step);
  const auto [earlier, earlier_count] = WindowMean(curve, step / 2 - width, step / 2);
  if (level_count == 0 || earlier_count == 0) return std::nullopt;
  Features features;
  features.best = curve.running_best[(end - curve.steps.begin()) - 1];
  features.progress = level - earlier;
  features.progress_noise =
      fitted_->model_noise * std::sqrt(1.0 / level_count + 1.0 / earlier_count);
  return features;
}

NeighbourCurveModel::Fitted NeighbourCurveModel::FitCurves(
    std::span<const LearningCurve* const> finished, int64_t horizon) const {
  Fitted fitted;
  fitted.horizon = horizon;
  std::vector<double> noises;
  std::vector<double> values;
  for (const LearningCurve* curve : finished) {
    Curve prepared = Prepare(*curve);
    const auto end = std::upper_bound(prepared.steps.begin(), prepared.steps.end(), horizon);
    if (end == prepared.steps.begin()) continue;
    prepared.final_best = prepared.running_best[(end - prepared.steps.begin()) - 1];
    if (prepared.values.size() > 1) noises.push_back(StepNoise(prepared.values));
    values.insert(values.end(), prepared.values.begin(), prepared.values.end());
    fitted.finished.push_back(std::move(prepared));
  }
  fitted.noise = noises.empty() ? 0 : Median(noises);
  double least = std::numeric_limits<double>::infinity();
  double most = -std::numeric_limits<double>::infinity();
  for (double value : values) {
    least = std::min(least, value);
    most = std::max(most, value);
  }
  fitted.lattice = LatticeStep(std::move(values));
  ChooseScale(fitted, least, most);
  if (fitted.log_scale) {
    std::vector<double> log_noises;
    for (Curve& curve : fitted.finished) {
      ToModelUnits(curve, fitted);
      if (curve.values.size() > 1) log_noises.push_back(StepNoise(curve.values));
    }
    fitted.model_noise = log_noises.empty() ? 0 : Median(log_noises);
  }
  return fitted;
}

void NeighbourCurveModel::Fit(std::span<const LearningCurve* const> finished, int64_t horizon) {
  fitted_ = std::make_shared<const Fitted>(FitCurves(finished, horizon));
  stopped_.clear();
}

void NeighbourCurveModel::Fit(std::span<const LearningCurve* const> finished, int64_t horizon,
                              NeighbourFitCache& cache) {
  fitted_ = cache.Get(goal_, finished, horizon,
                      [&] { return std::make_shared<const Fitted>(FitCurves(finished, horizon)); });
  stopped_.clear();
}

void NeighbourCurveModel::SetStopped(std::span<const LearningCurve* const> stopped) {
  stopped_.clear();
  if (fitted_->finished.empty()) return;
  // The finished curves' features at each stopped curve's last step, once
  // per distinct step.
  std::map<int64_t, std::pair<std::vector<Neighbour>, double>> pools;
  for (const LearningCurve* curve : stopped) {
    Curve prepared = Prepare(*curve);
    if (prepared.steps.empty()) continue;
    const int64_t last = prepared.steps.back();
    if (last >= fitted_->horizon) continue;
    prepared.final_best = prepared.running_best.back();
    ToModelUnits(prepared, *fitted_);
    const std::optional<Features> at_last = FeaturesAt(prepared, last);
    if (!at_last.has_value()) continue;
    auto [pool, inserted] = pools.try_emplace(last);
    if (inserted) {
      std::vector<double> bests;
      pool->second.first = FinishedAt(last, bests);
      pool->second.second = bests.empty() ? 0 : Scale(bests);
    }
    std::vector<Neighbour>& neighbours = pool->second.first;
    if (neighbours.empty()) continue;
    const std::vector<double> future =
        Improvements(*at_last, last, neighbours,
                     NeighbourCount(static_cast<int>(neighbours.size())), pool->second.second,
                     /*extrapolate=*/false);
    stopped_.push_back({std::move(prepared), *std::max_element(future.begin(), future.end())});
  }
}

std::vector<NeighbourCurveModel::Neighbour> NeighbourCurveModel::FinishedAt(
    int64_t step, std::vector<double>& bests) const {
  std::vector<Neighbour> neighbours;
  for (const Curve& other : fitted_->finished) {
    const std::optional<Features> features = FeaturesAt(other, step);
    if (!features.has_value()) continue;
    neighbours.push_back({*features, std::max(0.0, features->best - other.final_best), 0});
    bests.push_back(features->best);
  }
  return neighbours;
}

double NeighbourCurveModel::Scale(const std::vector<double>& bests) const {
  return std::max(
      {RobustSpread(bests), fitted_->model_noise, 1e-12 * (1 + std::abs(Median(bests)))});
}

int NeighbourCurveModel::NeighbourCount(int finished) {
  return std::min(
      finished, std::clamp(static_cast<int>(std::lround(std::sqrt(static_cast<double>(finished)))),
                           kMinNeighbours, kMaxNeighbours));
}

std::vector<double> NeighbourCurveModel::Improvements(const Features& trial, int64_t step,
                                                      std::vector<Neighbour>& pool, int k,
                                                      double scale, bool extrapolate) const {
  for (Neighbour& neighbour : pool) {
    const double best = (trial.best - neighbour.features.best) / scale;
    const double progress = (trial.progress - neighbour.features.progress) / scale;
    neighbour.distance = best * best + progress * progress;
  }
  k = std::min<int>(k, static_cast<int>(pool.size()));
  std::partial_sort(pool.begin(), pool.begin() + k, pool.end(),
                    [](const Neighbour& a, const Neighbour& b) { return a.distance < b.distance; });
  // Progress within twice its noise is no progress.
  const double tolerance = 2 * trial.progress_noise;
  // Faster than every finished curve was at the step (beyond the noise),
  // the trial is unlike anything that finished: it is granted at least its
  // own straight-line extrapolation, its recent pace kept up to the horizon
  // (generous for every curve that saturates).
  double fastest = 0;
  for (const Neighbour& neighbour : pool) fastest = std::min(fastest, neighbour.features.progress);
  const double span = static_cast<double>(step - step / 2);
  const double extrapolated =
      extrapolate && trial.progress < fastest - tolerance
          ? -trial.progress / span *
                static_cast<double>(std::max<int64_t>(0, fitted_->horizon - step))
          : 0;
  std::vector<double> improvements;
  for (int i = 0; i < k; ++i) {
    double improvement = pool[i].improvement;
    if (trial.progress < -tolerance) {
      // What followed for a neighbour, at the trial's pace where that is
      // faster (up to kMaxPaceRatio times the neighbour's).
      const double pace = std::min(pool[i].features.progress, -tolerance);
      improvement *= std::clamp(trial.progress / pace, 1.0, kMaxPaceRatio);
    }
    improvements.push_back(std::max(improvement, extrapolated));
  }
  return improvements;
}

std::optional<FinalValuePrediction> NeighbourCurveModel::Predict(
    const LearningCurve& partial) const {
  if (fitted_->finished.empty()) return std::nullopt;
  Curve curve = Prepare(partial);
  if (curve.steps.empty()) return std::nullopt;
  ToModelUnits(curve, *fitted_);
  const int64_t step = curve.steps.back();
  const std::optional<Features> trial = FeaturesAt(curve, step);
  if (!trial.has_value()) return std::nullopt;

  std::vector<double> bests;
  std::vector<Neighbour> neighbours = FinishedAt(step, bests);
  if (neighbours.empty()) return std::nullopt;
  // Stopped trials that ran past the step: what they improved until their
  // stop, and what their finished look-alikes foretell after it.
  for (const Stopped& other : stopped_) {
    if (other.curve.steps.back() <= step) continue;
    const std::optional<Features> features = FeaturesAt(other.curve, step);
    if (!features.has_value()) continue;
    neighbours.push_back(
        {*features, std::max(0.0, features->best - other.curve.final_best) + other.after, 0});
    bests.push_back(features->best);
  }
  const double scale = Scale(bests);
  const int k = NeighbourCount(static_cast<int>(neighbours.size()));
  const std::vector<double> improvements = Improvements(*trial, step, neighbours, k, scale, true);

  // How well the neighbours foretold the finished curves nearest the trial,
  // each predicted from the others as the trial is: the spread of those
  // errors widens every prediction where curves are hard to foretell.
  const int calibrated = std::min<int>(kCalibrationCurves, static_cast<int>(neighbours.size()));
  std::partial_sort(neighbours.begin(), neighbours.begin() + calibrated, neighbours.end(),
                    [](const Neighbour& a, const Neighbour& b) { return a.distance < b.distance; });
  double squared_errors = 0;
  if (neighbours.size() > 1) {
    for (int j = 0; j < calibrated; ++j) {
      std::vector<Neighbour> others;
      others.reserve(neighbours.size() - 1);
      for (int i = 0; i < static_cast<int>(neighbours.size()); ++i) {
        if (i != j) others.push_back(neighbours[i]);
      }
      const std::vector<double> foretold =
          Improvements(neighbours[j].features, step, others, k, scale, false);
      double mean = 0;
      for (double improvement : foretold) mean += improvement;
      mean /= static_cast<double>(foretold.size());
      const double error = mean - neighbours[j].improvement;
      squared_errors += error * error;
    }
  }
  const double calibration = neighbours.size() > 1 ? std::sqrt(squared_errors / calibrated) : 0;

  const double sign = goal_ == v1::MetricSpec::MINIMIZE ? 1 : -1;
  FinalValuePrediction prediction;
  double least = std::numeric_limits<double>::infinity();
  double most = 0;
  // The predicted values' sum, in the model's units.
  double predicted_sum = 0;
  for (int i = 0; i < k; ++i) {
    least = std::min(least, improvements[i]);
    most = std::max(most, improvements[i]);
    const double value = trial->best - improvements[i];
    predicted_sum += value;
    prediction.means.push_back(sign *
                               (fitted_->log_scale ? fitted_->bound + std::exp(value) : value));
  }
  double noise = fitted_->model_noise;
  if (fitted_->log_scale) {
    // The noise at the predicted level: a count's noise is a larger share of
    // a small count than of a large one.
    noise = std::max(noise, fitted_->noise / std::exp(predicted_sum / k));
    prediction.log_scale = true;
    prediction.bound = sign * fitted_->bound + 0.0;  // + 0.0: 0, never -0.
  }
  prediction.stddev = std::sqrt(2 * noise * noise + calibration * calibration);
  prediction.basis =
      fitted_->log_scale
          ? absl::StrFormat(
                "the %d finished trials most like it at step %d came %.3g to %.3g times nearer "
                "the bound after it, at its pace; foretold within a factor of %.3g; as counts, "
                "on a log scale",
                k, step, std::exp(least), std::exp(most), std::exp(calibration))
          : absl::StrFormat(
                "the %d finished trials most like it at step %d improved by %g to %g after it, "
                "at its pace; foretold within %g",
                k, step, least, most, calibration);
  return prediction;
}

}  // namespace vernier::suggest
