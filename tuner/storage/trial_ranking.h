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

// Every metric of the spec (objectives and constraints, in its order) of a
// trial that ended with a final measurement; nullopt where it has none.
// Empty for other trials.
std::vector<std::optional<double>> FinalMetrics(const v1::Trial& trial, const v1::StudySpec& spec);

// The metrics of the spec without a constraint.
int ObjectiveCount(const v1::StudySpec& spec);

// True when `a` is strictly better than `b` under `goal`.
bool IsBetter(double a, double b, v1::MetricSpec::Goal goal);

// How far a final measurement lies outside the spec's outcome constraints:
// 0 when it meets every one (feasible), else the sum over violated
// constraints of the distance to the bound, relative to max(|bound|, 1);
// infinity when it lacks a constraint's metric.
double ConstraintViolation(const v1::Measurement& measurement, const v1::StudySpec& spec);

// The leaderboard, of trials that reported every objective (metrics without
// a constraint). With one objective: best first (ties by trial id); trials
// that violate an outcome constraint follow every feasible one, least
// violation first. With several objectives: the Pareto front of the
// feasible trials (no other feasible trial at least as good on every
// objective and better on one), ordered by the first objective; when no
// trial is feasible, the front with the violation as one more objective to
// minimise, least violation first. `top` > 0 keeps the first `top`.
std::vector<v1::Trial> RankTrials(std::span<const v1::Trial> trials, const v1::StudySpec& spec,
                                  int top);
// The same, of trials held elsewhere (e.g. on an arena): pointers to the
// ranked ones, in their order.
std::vector<const v1::Trial*> RankTrialPointers(std::span<const v1::Trial* const> trials,
                                                const v1::StudySpec& spec, int top);

}  // namespace vernier::tuner

#endif  // VERNIER_TUNER_STORAGE_TRIAL_RANKING_H_
