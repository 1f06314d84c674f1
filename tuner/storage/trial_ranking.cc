#include "tuner/storage/trial_ranking.h"

#include <algorithm>
#include <cmath>
#include <limits>

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

struct Ranked {
  const v1::Trial* trial;
  // The objectives, in the order of the spec's objectives.
  std::vector<double> objectives;
  double violation;
};

// Every objective of the spec, or nullopt when the trial lacks one.
std::optional<Ranked> Rankable(const v1::Trial& trial, const v1::StudySpec& spec) {
  if (!HasFinalMeasurement(trial)) return std::nullopt;
  Ranked ranked{&trial, {}, ConstraintViolation(trial.final_measurement(), spec)};
  for (const v1::MetricSpec& metric : spec.metrics()) {
    if (metric.has_constraint()) continue;
    std::optional<double> value = MetricValue(trial.final_measurement(), metric.metric_id());
    // NaN (which the API refuses) ranks nowhere rather than breaking the order.
    if (!value.has_value() || std::isnan(*value)) return std::nullopt;
    ranked.objectives.push_back(*value);
  }
  return ranked;
}

// Whether a is at least as good as b everywhere and better somewhere; with
// `violation`, the violation is one more value to minimise.
bool Dominates(const Ranked& a, const Ranked& b, std::span<const v1::MetricSpec::Goal> goals,
               bool violation) {
  bool strictly_better_somewhere = false;
  for (size_t i = 0; i < a.objectives.size(); ++i) {
    if (IsBetter(b.objectives[i], a.objectives[i], goals[i])) return false;
    if (IsBetter(a.objectives[i], b.objectives[i], goals[i])) strictly_better_somewhere = true;
  }
  if (violation) {
    if (b.violation < a.violation) return false;
    if (a.violation < b.violation) strictly_better_somewhere = true;
  }
  return strictly_better_somewhere;
}

// The candidates no other candidate dominates. Sorted lexicographically by
// their values, each turned into one to minimise, a candidate can only be
// dominated by one before it, and then also by a member of the front found
// so far (domination is transitive): O(n log n + n * front) instead of
// comparing every pair, so a front of a 100,000-trial study takes
// milliseconds.
std::vector<Ranked> ParetoFront(const std::vector<Ranked>& candidates,
                                std::span<const v1::MetricSpec::Goal> goals, bool violation) {
  const auto key = [&](const Ranked& ranked, size_t i) {
    if (i == ranked.objectives.size()) return ranked.violation;
    return goals[i] == v1::MetricSpec::MINIMIZE ? ranked.objectives[i] : -ranked.objectives[i];
  };
  const size_t values = goals.size() + (violation ? 1 : 0);
  std::vector<const Ranked*> order;
  order.reserve(candidates.size());
  for (const Ranked& candidate : candidates) order.push_back(&candidate);
  std::stable_sort(order.begin(), order.end(), [&](const Ranked* a, const Ranked* b) {
    for (size_t i = 0; i < values; ++i) {
      const double x = key(*a, i), y = key(*b, i);
      if (x != y) return x < y;
    }
    return false;
  });
  std::vector<const Ranked*> kept;
  for (const Ranked* candidate : order) {
    const bool dominated = std::any_of(kept.begin(), kept.end(), [&](const Ranked* member) {
      return Dominates(*member, *candidate, goals, violation);
    });
    if (!dominated) kept.push_back(candidate);
  }
  std::vector<Ranked> front;
  front.reserve(kept.size());
  for (const Ranked* member : kept) front.push_back(*member);
  return front;
}

}  // namespace

std::optional<double> FinalObjective(const v1::Trial& trial, const v1::StudySpec& spec) {
  if (!HasFinalMeasurement(trial) || spec.metrics().empty()) return std::nullopt;
  return MetricValue(trial.final_measurement(), spec.metrics(0).metric_id());
}

int ObjectiveCount(const v1::StudySpec& spec) {
  return static_cast<int>(
      std::count_if(spec.metrics().begin(), spec.metrics().end(),
                    [](const v1::MetricSpec& m) { return !m.has_constraint(); }));
}

bool IsBetter(double a, double b, v1::MetricSpec::Goal goal) {
  return goal == v1::MetricSpec::MINIMIZE ? a < b : a > b;
}

std::vector<std::optional<double>> FinalMetrics(const v1::Trial& trial, const v1::StudySpec& spec) {
  std::vector<std::optional<double>> values;
  if (!HasFinalMeasurement(trial)) return values;
  for (const v1::MetricSpec& metric : spec.metrics()) {
    values.push_back(MetricValue(trial.final_measurement(), metric.metric_id()));
  }
  return values;
}

double ConstraintViolation(const v1::Measurement& measurement, const v1::StudySpec& spec) {
  double violation = 0;
  for (const v1::MetricSpec& metric : spec.metrics()) {
    if (!metric.has_constraint()) continue;
    std::optional<double> value = MetricValue(measurement, metric.metric_id());
    if (!value.has_value() || std::isnan(*value)) return std::numeric_limits<double>::infinity();
    const v1::MetricSpec::Constraint& constraint = metric.constraint();
    if (constraint.has_min_value() && *value < constraint.min_value()) {
      violation +=
          (constraint.min_value() - *value) / std::max(std::abs(constraint.min_value()), 1.0);
    }
    if (constraint.has_max_value() && *value > constraint.max_value()) {
      violation +=
          (*value - constraint.max_value()) / std::max(std::abs(constraint.max_value()), 1.0);
    }
  }
  return violation;
}

std::vector<v1::Trial> RankTrials(std::span<const v1::Trial> trials, const v1::StudySpec& spec,
                                  int top) {
  std::vector<const v1::Trial*> pointers;
  pointers.reserve(trials.size());
  for (const v1::Trial& trial : trials) pointers.push_back(&trial);
  std::vector<v1::Trial> ranked;
  for (const v1::Trial* trial : RankTrialPointers(pointers, spec, top)) ranked.push_back(*trial);
  return ranked;
}

std::vector<const v1::Trial*> RankTrialPointers(std::span<const v1::Trial* const> trials,
                                                const v1::StudySpec& spec, int top) {
  std::vector<v1::MetricSpec::Goal> goals;
  for (const v1::MetricSpec& metric : spec.metrics()) {
    if (!metric.has_constraint()) goals.push_back(metric.goal());
  }
  std::vector<Ranked> candidates;
  for (const v1::Trial* trial : trials) {
    if (std::optional<Ranked> ranked = Rankable(*trial, spec)) {
      candidates.push_back(std::move(*ranked));
    }
  }
  if (goals.size() > 1) {
    std::vector<Ranked> feasible;
    for (const Ranked& candidate : candidates) {
      if (candidate.violation == 0) feasible.push_back(candidate);
    }
    candidates = feasible.empty() ? ParetoFront(candidates, goals, /*violation=*/true)
                                  : ParetoFront(feasible, goals, /*violation=*/false);
  }
  const v1::MetricSpec::Goal goal = goals.empty() ? v1::MetricSpec::MAXIMIZE : goals[0];
  std::stable_sort(candidates.begin(), candidates.end(), [&](const Ranked& a, const Ranked& b) {
    if (a.violation != b.violation) return a.violation < b.violation;
    if (!a.objectives.empty() && IsBetter(a.objectives[0], b.objectives[0], goal)) return true;
    if (!b.objectives.empty() && IsBetter(b.objectives[0], a.objectives[0], goal)) return false;
    return a.trial->id() < b.trial->id();
  });
  if (top > 0 && static_cast<int>(candidates.size()) > top) candidates.resize(top);
  std::vector<const v1::Trial*> ranked;
  ranked.reserve(candidates.size());
  for (const Ranked& candidate : candidates) ranked.push_back(candidate.trial);
  return ranked;
}

}  // namespace vernier::tuner
