#include "tuner/storage/trial_ranking.h"

#include <algorithm>

namespace vernier::tuner {

std::optional<double> MetricValue(const v1::Measurement& measurement, std::string_view metric_id) {
  for (const v1::Metric& metric : measurement.metrics()) {
    if (metric.metric_id() == metric_id) return metric.value();
  }
  return std::nullopt;
}

namespace {

bool HasFinalMeasurement(const v1::Trial& trial) {
  return (trial.state() == v1::Trial::SUCCEEDED || trial.state() == v1::Trial::STOPPED_EARLY) &&
         trial.has_final_measurement();
}

// Every metric of the spec, or nullopt when the trial lacks one.
std::optional<std::vector<double>> AllMetrics(const v1::Trial& trial, const v1::StudySpec& spec) {
  if (!HasFinalMeasurement(trial)) return std::nullopt;
  std::vector<double> values;
  for (const v1::MetricSpec& metric : spec.metrics()) {
    std::optional<double> value = MetricValue(trial.final_measurement(), metric.metric_id());
    if (!value.has_value()) return std::nullopt;
    values.push_back(*value);
  }
  return values;
}

bool Dominates(const std::vector<double>& a, const std::vector<double>& b,
               const v1::StudySpec& spec) {
  bool strictly_better_somewhere = false;
  for (size_t i = 0; i < a.size(); ++i) {
    v1::MetricSpec::Goal goal = spec.metrics(static_cast<int>(i)).goal();
    if (IsBetter(b[i], a[i], goal)) return false;
    if (IsBetter(a[i], b[i], goal)) strictly_better_somewhere = true;
  }
  return strictly_better_somewhere;
}

}  // namespace

std::optional<double> FinalObjective(const v1::Trial& trial, const v1::StudySpec& spec) {
  if (!HasFinalMeasurement(trial) || spec.metrics().empty()) return std::nullopt;
  return MetricValue(trial.final_measurement(), spec.metrics(0).metric_id());
}

bool IsBetter(double a, double b, v1::MetricSpec::Goal goal) {
  return goal == v1::MetricSpec::MINIMIZE ? a < b : a > b;
}

std::vector<v1::Trial> RankTrials(std::span<const v1::Trial> trials, const v1::StudySpec& spec,
                                  int top) {
  struct Ranked {
    const v1::Trial* trial;
    std::vector<double> metrics;
  };
  std::vector<Ranked> candidates;
  for (const v1::Trial& trial : trials) {
    if (std::optional<std::vector<double>> metrics = AllMetrics(trial, spec)) {
      candidates.push_back({&trial, std::move(*metrics)});
    }
  }
  if (spec.metrics_size() > 1) {
    std::vector<Ranked> front;
    for (const Ranked& candidate : candidates) {
      bool dominated = std::any_of(candidates.begin(), candidates.end(), [&](const Ranked& other) {
        return Dominates(other.metrics, candidate.metrics, spec);
      });
      if (!dominated) front.push_back(candidate);
    }
    candidates = std::move(front);
  }
  const v1::MetricSpec::Goal goal =
      spec.metrics().empty() ? v1::MetricSpec::MAXIMIZE : spec.metrics(0).goal();
  std::stable_sort(candidates.begin(), candidates.end(), [&](const Ranked& a, const Ranked& b) {
    if (IsBetter(a.metrics[0], b.metrics[0], goal)) return true;
    if (IsBetter(b.metrics[0], a.metrics[0], goal)) return false;
    return a.trial->id() < b.trial->id();
  });
  if (top > 0 && static_cast<int>(candidates.size()) > top) candidates.resize(top);
  std::vector<v1::Trial> ranked;
  ranked.reserve(candidates.size());
  for (const Ranked& candidate : candidates) ranked.push_back(*candidate.trial);
  return ranked;
}

}  // namespace vernier::tuner
