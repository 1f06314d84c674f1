#ifndef VERNIER_HTTP_DASHBOARD_VIEWS_H_
#define VERNIER_HTTP_DASHBOARD_VIEWS_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "http/study_table.h"
#include "vernier/v1/http.pb.h"
#include "vernier/v1/job.pb.h"
#include "vernier/v1/study.pb.h"

namespace vernier::http {

// What the study page's views are made of, computed from a StudyTable (pure
// logic; docs/web.md, "Server-side aggregates"). Every answer is bounded
// whatever the study's size.

// The leaderboard page `query` asks for (its fields say how): trials
// without a value in the ordering column come last either way, ties by id.
// INVALID_ARGUMENT naming the column or parameter the study lacks, or a page
// size or page out of range.
absl::StatusOr<v1::DashboardTrialPage> LeaderboardPage(const StudyTable& table,
                                                       const v1::StudySpec& spec,
                                                       const v1::DashboardTrialsRequest& query);

// The ids of the Pareto front of the study's objectives, as
// ListOptimalTrials ranks it (tuner::RankTrials over the trials that ended
// with a final measurement); empty with fewer than two objectives.
std::vector<int64_t> ParetoFrontIds(const StudyTable& table, const v1::StudySpec& spec);

// Indexes into table.rows() (ascending) of at most `max_points` rows: the
// `keep` ids (at most half of max_points, in their order), the best tenth
// of max_points by the first metric among the trials that ended with a final
// measurement, and the rest spread evenly over the rows.
std::vector<size_t> SampleRows(const StudyTable& table, const v1::StudySpec& spec,
                               const std::vector<int64_t>& keep, size_t max_points);

// Each parameter's importance for the first metric (in the order of
// table.parameter_names()), from the SUCCEEDED trials with a final value: a
// first-order variance decomposition, fANOVA's main effects without its
// forest. The trials are grouped by the parameter's value (equal-width bins
// of a numeric one, about 5 trials a bin and 2 to 10 bins; a group per
// category); the share of the objective's variance between the groups, less
// what chance alone gives that many groups (epsilon squared:
// (SS_between - (k - 1) MS_within) / SS_total, at least 0), is its effect,
// and the effects are normalised to sum to 1. All 0 with fewer than 3 such
// trials or no variance. Interactions are not counted.
std::vector<double> ParameterImportance(const StudyTable& table);

// The plots' answer: SampleRows, the best so far, state counts, the Pareto
// front and importances given, and the most recent trials.
v1::StudyDashboard Summary(const StudyTable& table, const v1::StudySpec& spec,
                           const std::vector<int64_t>& pareto_front,
                           const std::vector<double>& importance, size_t max_points);

// Sets the gpus of each of summary's recent trials that has a run among
// `runs`: those its replicas held in the trial's latest attempt, "INDEX", or
// "HOST:INDEX" when that attempt's replicas ran on several hosts.
void AddRecentGpus(const google::protobuf::RepeatedPtrField<v1::TrialRun>& runs,
                   v1::StudyDashboard& summary);

// The trials whose learning curves the page draws: of those with a
// measurement, the best fifth of `max_trials` (by the first metric, final or
// latest value) and the most recent ones for the rest; by id.
std::vector<int64_t> CurveTrialIds(const StudyTable& table, const v1::StudySpec& spec,
                                   size_t max_trials);

}  // namespace vernier::http

#endif  // VERNIER_HTTP_DASHBOARD_VIEWS_H_
