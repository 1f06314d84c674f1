#ifndef VERNIER_HTTP_STUDY_TABLE_H_
#define VERNIER_HTTP_STUDY_TABLE_H_

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "vernier/v1/http.pb.h"
#include "vernier/v1/study.pb.h"

namespace vernier::http {

// Every trial of one study as the dashboard's views need it (a
// DashboardTrial each: metrics and parameters, no measurements), by id, kept
// up to date by applying the trials read since (Apply). Each change gets the
// next sequence number, so a live view asks what changed since the one it
// saw last (ChangedSince). Pure: its owner reads the trials.
class StudyTable {
 public:
  // The columns: the spec's metrics, and its parameters (conditional ones
  // after their parent, depth first).
  explicit StudyTable(const v1::StudySpec& spec);

  // Records `trial`; whether it was new or differs from what was recorded.
  bool Apply(const v1::Trial& trial);
  // The same with the trial's row (RowOf).
  bool ApplyRow(v1::DashboardTrial row);

  // `trial` as a row of this table. Reads only the columns, which never
  // change: safe to call from other threads while the table is updated.
  v1::DashboardTrial RowOf(const v1::Trial& trial) const;

  // By id.
  const std::vector<v1::DashboardTrial>& rows() const { return rows_; }
  const std::vector<std::string>& metric_ids() const { return metric_ids_; }
  const std::vector<std::string>& parameter_names() const { return parameter_names_; }
  // Whether each parameter (as parameter_names) is searched on a log scale
  // (UNIT_LOG_SCALE).
  const std::vector<bool>& log_scaled() const { return log_scaled_; }
  // The ids of the trials that have not ended (REQUESTED, ACTIVE, STOPPING):
  // the only ones that change.
  const std::set<int64_t>& pending_ids() const { return pending_; }
  // The last change's sequence number (0: none yet).
  int64_t sequence() const { return sequence_; }
  // The rows changed after sequence number `sequence`, by id.
  std::vector<const v1::DashboardTrial*> ChangedSince(int64_t sequence) const;

 private:
  std::vector<std::string> metric_ids_;
  std::vector<std::string> parameter_names_;
  std::vector<bool> log_scaled_;
  // Index in parameter_names_ by name.
  absl::flat_hash_map<std::string, int> parameter_index_;
  std::vector<v1::DashboardTrial> rows_;
  // The sequence number of each row's last change, as rows_.
  std::vector<int64_t> changed_;
  std::set<int64_t> pending_;
  int64_t sequence_ = 0;
};

}  // namespace vernier::http

#endif  // VERNIER_HTTP_STUDY_TABLE_H_
