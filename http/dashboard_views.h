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

// Below this many SUCCEEDED trials with a final value the importances mean
// little (bins of about 5 trials and at least 2 of them): the page says
// "too few trials" instead of reading them (docs/web.md).
inline constexpr int kMinImportanceTrials = 10;

// Each parameter's importance for the first metric and what it was read from.
struct ImportanceReading {
  // In the order of table.parameter_names(): the share of the objective's
  // variance the parameter explains alone, less what chance gives. Neither
  // clamped at 0 nor scaled: a value near 0 or below says the parameter's
  // effect is not told apart from noise, and the shares need not sum to 1.
  std::vector<double> shares;
  // The SUCCEEDED trials with a final value they come from.
  int64_t trials = 0;
  // STOPPED_EARLY trials with a final value, left out: their value is from
  // an earlier step than the others', so it would read as the parameter's
  // effect what is the step's.
  int64_t stopped_left_out = 0;
};

// A first-order variance decomposition, fANOVA's main effects without its
// forest, over the SUCCEEDED trials with a final value. The trials are
// grouped by the parameter's value (equal-width bins of a numeric one, in
// the parameter's own scale, about 5 trials a bin and 2 to 10 bins; a group
// per category; one for the trials where it is inactive); the share is
// epsilon squared, (SS_between - (k - 1) MS_within) / SS_total. All 0 with
// fewer than 3 such trials or no variance. Interactions are not counted.
ImportanceReading ParameterImportance(const StudyTable& table);

// The plots' answer: SampleRows, the best so far, state counts, the Pareto
// front and importances given, and the most recent trials.
v1::StudyDashboard Summary(const StudyTable& table, const v1::StudySpec& spec,
                           const std::vector<int64_t>& pareto_front,
                           const ImportanceReading& importance, size_t max_points);

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
