#ifndef VERNIER_TUNER_STORAGE_TRIAL_RANKING_H_
#define VERNIER_TUNER_STORAGE_TRIAL_RANKING_H_

#include <optional>
#include <span>
#include <vector>

#include "vernier/v1/study.pb.h"

namespace vernier::tuner {

// The value of `metric_id` in a measurement, if it has one.
std::optional<double> MetricValue(const v1::Measurement& measurement, std::string_view metric_id);

// The objective (first metric) of a trial that ended with a final
// measurement: SUCCEEDED or STOPPED_EARLY trials only.
std::optional<double> FinalObjective(const v1::Trial& trial, const v1::StudySpec& spec);

// True when `a` is strictly better than `b` under `goal`.
bool IsBetter(double a, double b, v1::MetricSpec::Goal goal);

// The leaderboard. With one metric: every trial that has a final objective,
// best first (ties by trial id). With several metrics: the Pareto front
// (no other trial at least as good on every metric and better on one),
// ordered by the first metric. `top` > 0 keeps the first `top`.
std::vector<v1::Trial> RankTrials(std::span<const v1::Trial> trials, const v1::StudySpec& spec,
                                  int top);

}  // namespace vernier::tuner

#endif  // VERNIER_TUNER_STORAGE_TRIAL_RANKING_H_
