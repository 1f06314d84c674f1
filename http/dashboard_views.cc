#include "http/dashboard_views.h"

#include <google/protobuf/arena.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <string_view>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "http/downsample.h"
#include "tuner/storage/trial_ranking.h"

namespace vernier::http {
namespace {

constexpr int64_t kDefaultPageSize = 20;
constexpr int64_t kMaxPageSize = 1000;
constexpr size_t kMaxRecent = 100;

bool Minimizes(const v1::StudySpec& spec, int metric) {
  return metric < spec.metrics_size() && spec.metrics(metric).goal() == v1::MetricSpec::MINIMIZE;
}

// Whether row `a` is better than row `b` under metric `metric` (both have a
// value), ties by id.
bool Better(const v1::DashboardTrial& a, const v1::DashboardTrial& b, int metric, bool minimize) {
  const double x = a.metrics(metric), y = b.metrics(metric);
  if (x != y) return minimize ? x < y : x > y;
  return a.id() < b.id();
}

// A trial that ended with a final value of the first metric: what the
// leaderboard index (ListBestTrials) ranks.
bool HasFinalObjective(const v1::DashboardTrial& row) {
  return row.final() && row.metrics_size() > 0 && !std::isnan(row.metrics(0)) &&
         (row.state() == v1::Trial::SUCCEEDED || row.state() == v1::Trial::STOPPED_EARLY);
}

// The indexes of the rows passing `keep`, the best `count` first by the
// first metric.
template <typename Keep>
std::vector<size_t> BestRows(const StudyTable& table, const v1::StudySpec& spec, size_t count,
                             Keep keep) {
  const std::vector<v1::DashboardTrial>& rows = table.rows();
  std::vector<size_t> candidates;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (keep(rows[i])) candidates.push_back(i);
  }
  count = std::min(count, candidates.size());
  const bool minimize = Minimizes(spec, 0);
  std::partial_sort(candidates.begin(), candidates.begin() + static_cast<std::ptrdiff_t>(count),
                    candidates.end(),
                    [&](size_t a, size_t b) { return Better(rows[a], rows[b], 0, minimize); });
  candidates.resize(count);
  return candidates;
}

std::ptrdiff_t IndexOf(const StudyTable& table, int64_t id) {
  const std::vector<v1::DashboardTrial>& rows = table.rows();
  const auto at = std::lower_bound(
      rows.begin(), rows.end(), id,
      [](const v1::DashboardTrial& row, int64_t wanted) { return row.id() < wanted; });
  return at != rows.end() && at->id() == id ? at - rows.begin() : -1;
}

// A leaderboard column's value in one row: a number or a text; missing
// values sort last.
struct Key {
  bool missing = false;
  bool is_text = false;
  double number = 0;
  std::string_view text;
};

class Column {
 public:
  static absl::StatusOr<Column> Named(const StudyTable& table, const v1::StudySpec& spec,
                                      const std::string& name) {
    Column column;
    if (name.empty() && !table.metric_ids().empty()) {
      column.kind_ = kMetric;
      column.descending_ = !Minimizes(spec, 0);
      return column;
    }
    if (name == "id" || name.empty()) return column;
    if (name == "state") {
      column.kind_ = kState;
      return column;
    }
    if (name == "measurements") {
      column.kind_ = kMeasurements;
      return column;
    }
    const auto index = [&](const std::vector<std::string>& names) {
      return std::find(names.begin(), names.end(), name) - names.begin();
    };
    if (const auto metric = index(table.metric_ids());
        metric < static_cast<std::ptrdiff_t>(table.metric_ids().size())) {
      column.kind_ = kMetric;
      column.index_ = static_cast<int>(metric);
      column.descending_ = !Minimizes(spec, column.index_);
      return column;
    }
    if (const auto parameter = index(table.parameter_names());
        parameter < static_cast<std::ptrdiff_t>(table.parameter_names().size())) {
      column.kind_ = kParameter;
      column.index_ = static_cast<int>(parameter);
      return column;
    }
    return absl::InvalidArgumentError(absl::StrCat(
        "orderBy \"", name, "\" is no column of the study: id, state, measurements, a metric (",
        absl::StrJoin(table.metric_ids(), ", "), ") or a parameter (",
        absl::StrJoin(table.parameter_names(), ", "), ")"));
  }

  Key Of(const v1::DashboardTrial& row) const {
    Key key;
    switch (kind_) {
      case kId:
        key.number = static_cast<double>(row.id());
        break;
      case kState:
        key.is_text = true;
        key.text = v1::Trial::State_Name(row.state());
        break;
      case kMeasurements:
        key.number = static_cast<double>(row.measurement_count());
        break;
      case kMetric:
        key.number = row.metrics(index_);
        key.missing = std::isnan(key.number);
        break;
      case kParameter:
        if (const auto label = row.labels().find(index_); label != row.labels().end()) {
          key.is_text = true;
          key.text = label->second;
        } else {
          key.number = row.parameters(index_);
          key.missing = std::isnan(key.number);
        }
        break;
    }
    return key;
  }

  // Whether this column sorts best (largest) first when not told.
  bool descending() const { return descending_; }

 private:
  enum Kind { kId, kState, kMeasurements, kMetric, kParameter };
  Kind kind_ = kId;
  int index_ = 0;
  bool descending_ = false;
};

}  // namespace

absl::StatusOr<v1::DashboardTrialPage> LeaderboardPage(const StudyTable& table,
                                                       const v1::StudySpec& spec,
                                                       const v1::DashboardTrialsRequest& query) {
  const int64_t page_size = query.page_size() == 0 ? kDefaultPageSize : query.page_size();
  if (page_size < 1 || page_size > kMaxPageSize) {
    return absl::InvalidArgumentError(
        absl::StrCat("pageSize must be 1 to ", kMaxPageSize, ", not ", page_size));
  }
  if (query.page() < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("page must not be negative, not ", query.page()));
  }
  absl::StatusOr<Column> column = Column::Named(table, spec, query.order_by());
  if (!column.ok()) return column.status();
  int range = -1;
  if (!query.range_parameter().empty()) {
    const std::vector<std::string>& names = table.parameter_names();
    const auto found = std::find(names.begin(), names.end(), query.range_parameter());
    if (found == names.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("rangeParameter \"", query.range_parameter(),
                       "\" is no parameter of the study: ", absl::StrJoin(names, ", ")));
    }
    range = static_cast<int>(found - names.begin());
  }
  const std::vector<v1::DashboardTrial>& rows = table.rows();
  std::vector<size_t> kept;
  for (size_t i = 0; i < rows.size(); ++i) {
    const v1::DashboardTrial& row = rows[i];
    if (query.state() != v1::Trial::STATE_UNSPECIFIED && row.state() != query.state()) continue;
    if (range >= 0 && (query.has_min() || query.has_max())) {
      const double value = row.parameters(range);
      if (std::isnan(value) || (query.has_min() && value < query.min()) ||
          (query.has_max() && value > query.max())) {
        continue;
      }
    }
    kept.push_back(i);
  }
  v1::DashboardTrialPage page;
  for (const std::string& id : table.metric_ids()) page.add_metric_ids(id);
  for (const std::string& name : table.parameter_names()) page.add_parameter_names(name);
  page.set_total_size(static_cast<int64_t>(kept.size()));
  const int64_t pages =
      std::max<int64_t>(1, (static_cast<int64_t>(kept.size()) + page_size - 1) / page_size);
  page.set_page(std::min(query.page(), pages - 1));
  const size_t first = static_cast<size_t>(page.page() * page_size);
  const size_t end = std::min(kept.size(), first + static_cast<size_t>(page_size));
  const bool descending = query.has_descending() ? query.descending() : column->descending();
  std::partial_sort(kept.begin(), kept.begin() + static_cast<std::ptrdiff_t>(end), kept.end(),
                    [&](size_t a, size_t b) {
                      const Key x = column->Of(rows[a]), y = column->Of(rows[b]);
                      if (x.missing != y.missing) return y.missing;
                      if (!x.missing) {
                        if (x.is_text != y.is_text) return y.is_text;  // Numbers before texts.
                        if (x.is_text ? x.text != y.text : x.number != y.number) {
                          const bool less = x.is_text ? x.text < y.text : x.number < y.number;
                          return descending ? !less : less;
                        }
                      }
                      return rows[a].id() < rows[b].id();
                    });
  for (size_t i = first; i < end; ++i) *page.add_trials() = rows[kept[i]];
  return page;
}

std::vector<int64_t> ParetoFrontIds(const StudyTable& table, const v1::StudySpec& spec) {
  std::vector<int64_t> front;
  if (tuner::ObjectiveCount(spec) < 2) return front;
  // The ranking takes trials; they live on an arena, freed at once (a
  // study's every finished trial).
  google::protobuf::Arena arena;
  std::vector<const v1::Trial*> trials;
  for (const v1::DashboardTrial& row : table.rows()) {
    if (!row.final() ||
        (row.state() != v1::Trial::SUCCEEDED && row.state() != v1::Trial::STOPPED_EARLY)) {
      continue;
    }
    v1::Trial* trial = google::protobuf::Arena::CreateMessage<v1::Trial>(&arena);
    trial->set_id(row.id());
    trial->set_state(row.state());
    v1::Measurement& final = *trial->mutable_final_measurement();
    for (int i = 0; i < row.metrics_size(); ++i) {
      if (std::isnan(row.metrics(i))) continue;
      v1::Metric& metric = *final.add_metrics();
      metric.set_metric_id(table.metric_ids()[static_cast<size_t>(i)]);
      metric.set_value(row.metrics(i));
    }
    trials.push_back(trial);
  }
  for (const v1::Trial* trial : tuner::RankTrialPointers(trials, spec, 0)) {
    front.push_back(trial->id());
  }
  return front;
}

std::vector<size_t> SampleRows(const StudyTable& table, const v1::StudySpec& spec,
                               const std::vector<int64_t>& keep, size_t max_points) {
  const size_t count = table.rows().size();
  std::vector<bool> taken(count);
  std::vector<size_t> chosen;
  const auto take = [&](size_t index) {
    if (chosen.size() < max_points && !taken[index]) {
      taken[index] = true;
      chosen.push_back(index);
    }
  };
  for (size_t i = 0; i < keep.size() && i < max_points / 2; ++i) {
    if (const std::ptrdiff_t index = IndexOf(table, keep[i]); index >= 0) {
      take(static_cast<size_t>(index));
    }
  }
  for (const size_t index :
       BestRows(table, spec, std::max<size_t>(1, max_points / 10), HasFinalObjective)) {
    take(index);
  }
  if (chosen.size() < max_points && count > 0) {
    const size_t left = max_points - chosen.size();
    if (left == 1) {
      take(count - 1);
    } else {
      for (const size_t index : DownsampleIndexes(count, left)) take(index);
    }
  }
  std::sort(chosen.begin(), chosen.end());
  return chosen;
}

ImportanceReading ParameterImportance(const StudyTable& table) {
  const size_t parameters = table.parameter_names().size();
  ImportanceReading reading;
  reading.shares.assign(parameters, 0.0);
  std::vector<double>& importance = reading.shares;
  std::vector<const v1::DashboardTrial*> done;
  std::vector<double> objective;
  double mean = 0;
  for (const v1::DashboardTrial& row : table.rows()) {
    if (!HasFinalObjective(row)) continue;
    if (row.state() != v1::Trial::SUCCEEDED) {
      ++reading.stopped_left_out;
      continue;
    }
    done.push_back(&row);
    objective.push_back(row.metrics(0));
    mean += row.metrics(0);
  }
  reading.trials = static_cast<int64_t>(done.size());
  const double n = static_cast<double>(done.size());
  if (done.size() < 3) return reading;
  mean /= n;
  double total = 0;
  for (const double value : objective) total += (value - mean) * (value - mean);
  if (total <= 0) return reading;
  // Each trial's category of each CATEGORICAL parameter (-1: none), read
  // in one pass over the rows' labels: 1, 2, ... in order of appearance.
  std::vector<std::vector<int>> category(parameters);
  std::vector<absl::flat_hash_map<std::string_view, int>> category_ids(parameters);
  for (size_t t = 0; t < done.size(); ++t) {
    for (const auto& [index, label] : done[t]->labels()) {
      if (index < 0 || static_cast<size_t>(index) >= parameters) continue;
      std::vector<int>& column = category[static_cast<size_t>(index)];
      if (column.empty()) column.assign(done.size(), -1);
      auto& ids = category_ids[static_cast<size_t>(index)];
      column[t] = ids.try_emplace(label, static_cast<int>(ids.size())).first->second;
    }
  }
  // About 5 trials a bin, 2 to 10 bins.
  const int bins = std::clamp(static_cast<int>(done.size() / 5), 2, 10);
  std::vector<double> column(done.size());
  for (size_t p = 0; p < parameters; ++p) {
    const int index = static_cast<int>(p);
    // Each trial's group: a category, or a bin of the numeric range.
    double low = std::numeric_limits<double>::infinity(), high = -low;
    const bool log_scaled = table.log_scaled()[p];
    for (size_t t = 0; t < done.size(); ++t) {
      column[t] = done[t]->parameters(index);
      // A log-scaled parameter's bins are equal in its logarithm (where it
      // is searched), not crowded into the range's top decade.
      if (log_scaled && !std::isnan(column[t])) {
        column[t] = column[t] > 0 ? std::log(column[t]) : std::nan("");
      }
      if (!std::isnan(column[t])) {
        low = std::min(low, column[t]);
        high = std::max(high, column[t]);
      }
    }
    // Groups 0 to bins - 1: the numeric bins; bins: absent; then one per
    // category. Each holds the objective's sum and count.
    std::vector<std::pair<double, double>> groups(static_cast<size_t>(bins) + 1 +
                                                  category_ids[p].size());
    for (size_t t = 0; t < done.size(); ++t) {
      size_t group = static_cast<size_t>(bins);
      if (!category[p].empty() && category[p][t] >= 0) {
        group = static_cast<size_t>(bins) + 1 + static_cast<size_t>(category[p][t]);
      } else if (!std::isnan(column[t])) {
        group = high > low
                    ? static_cast<size_t>(std::min(
                          bins - 1, static_cast<int>((column[t] - low) / (high - low) * bins)))
                    : 0;
      }
      groups[group].first += objective[t];
      groups[group].second += 1;
    }
    std::erase_if(groups, [](const std::pair<double, double>& sums) { return sums.second == 0; });
    const double k = static_cast<double>(groups.size());
    if (groups.size() < 2 || n <= k) continue;
    double between = 0;
    for (const auto& sums : groups) {
      const double group_mean = sums.first / sums.second;
      between += sums.second * (group_mean - mean) * (group_mean - mean);
    }
    const double within = (total - between) / (n - k);
    importance[p] = (between - (k - 1) * within) / total;
  }
  return reading;
}

v1::StudyDashboard Summary(const StudyTable& table, const v1::StudySpec& spec,
                           const std::vector<int64_t>& pareto_front,
                           const ImportanceReading& importance, size_t max_points) {
  v1::StudyDashboard summary;
  for (const std::string& id : table.metric_ids()) summary.add_metric_ids(id);
  for (const std::string& name : table.parameter_names()) summary.add_parameter_names(name);
  const std::vector<v1::DashboardTrial>& rows = table.rows();
  summary.set_trial_count(static_cast<int64_t>(rows.size()));
  const bool minimize = Minimizes(spec, 0);
  std::vector<v1::StudyDashboard::BestPoint> records;
  for (const v1::DashboardTrial& row : rows) {
    ++(*summary.mutable_state_counts())[v1::Trial::State_Name(row.state())];
    if (row.state() != v1::Trial::SUCCEEDED || !HasFinalObjective(row)) continue;
    const double value = row.metrics(0);
    if (records.empty() ||
        (minimize ? value < records.back().value() : value > records.back().value())) {
      v1::StudyDashboard::BestPoint& point = records.emplace_back();
      point.set_trial_id(row.id());
      point.set_value(value);
    }
    summary.set_last_trial_id(row.id());
  }
  for (const size_t index : DownsampleIndexes(records.size(), max_points)) {
    *summary.add_best_so_far() = records[index];
  }
  for (const size_t index : SampleRows(table, spec, pareto_front, max_points)) {
    *summary.add_sample() = rows[index];
  }
  for (const int64_t id : pareto_front) summary.add_pareto_front(id);
  for (const double value : importance.shares) summary.add_importance(value);
  summary.set_importance_trial_count(importance.trials);
  summary.set_importance_min_trials(kMinImportanceTrials);
  summary.set_importance_stopped_left_out(importance.stopped_left_out);
  const size_t recent = std::min({kMaxRecent, max_points, rows.size()});
  for (size_t i = rows.size() - recent; i < rows.size(); ++i) *summary.add_recent() = rows[i];
  return summary;
}

void AddRecentGpus(const google::protobuf::RepeatedPtrField<v1::TrialRun>& runs,
                   v1::StudyDashboard& summary) {
  absl::flat_hash_map<int64_t, const v1::TrialRun*> latest;
  for (const v1::TrialRun& run : runs) {
    const v1::TrialRun*& seen = latest[run.trial_id()];
    if (seen == nullptr || run.attempt() >= seen->attempt()) seen = &run;
  }
  for (v1::DashboardTrial& trial : *summary.mutable_recent()) {
    const auto found = latest.find(trial.id());
    if (found == latest.end()) continue;
    std::set<std::string_view> hosts;
    for (const v1::ReplicaStatus& replica : found->second->replicas()) hosts.insert(replica.host());
    for (const v1::ReplicaStatus& replica : found->second->replicas()) {
      for (const int32_t gpu : replica.gpus()) {
        trial.add_gpus(hosts.size() > 1 ? absl::StrCat(replica.host(), ":", gpu)
                                        : absl::StrCat(gpu));
      }
    }
  }
}

std::vector<int64_t> CurveTrialIds(const StudyTable& table, const v1::StudySpec& spec,
                                   size_t max_trials) {
  const std::vector<v1::DashboardTrial>& rows = table.rows();
  std::vector<bool> taken(rows.size());
  size_t count = 0;
  const auto has_value = [](const v1::DashboardTrial& row) {
    return row.measurement_count() > 0 && row.metrics_size() > 0 && !std::isnan(row.metrics(0));
  };
  for (const size_t index : BestRows(table, spec, std::max<size_t>(1, max_trials / 5), has_value)) {
    if (count < max_trials) {
      taken[index] = true;
      ++count;
    }
  }
  for (size_t i = rows.size(); i > 0 && count < max_trials; --i) {
    if (!taken[i - 1] && rows[i - 1].measurement_count() > 0) {
      taken[i - 1] = true;
      ++count;
    }
  }
  std::vector<int64_t> ids;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (taken[i]) ids.push_back(rows[i].id());
  }
  return ids;
}

}  // namespace vernier::http
