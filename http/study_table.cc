#include "http/study_table.h"

#include <google/protobuf/util/message_differencer.h>

#include <algorithm>
#include <limits>

#include "tuner/storage/trial_states.h"

namespace vernier::http {
namespace {

constexpr double kMissing = std::numeric_limits<double>::quiet_NaN();

void AddParameters(const v1::ParameterSpec& parameter, std::vector<std::string>& names,
                   std::vector<bool>& log_scaled) {
  names.push_back(parameter.parameter_name());
  log_scaled.push_back(parameter.scale_type() == v1::ParameterSpec::UNIT_LOG_SCALE);
  for (const v1::ConditionalParameterSpec& child : parameter.conditional_parameter_specs()) {
    AddParameters(child.parameter_spec(), names, log_scaled);
  }
}

double Seconds(const google::protobuf::Timestamp& time) {
  return static_cast<double>(time.seconds()) + time.nanos() * 1e-9;
}

bool ById(const v1::DashboardTrial& row, int64_t id) { return row.id() < id; }

}  // namespace

StudyTable::StudyTable(const v1::StudySpec& spec) {
  for (const v1::MetricSpec& metric : spec.metrics()) metric_ids_.push_back(metric.metric_id());
  for (const v1::ParameterSpec& parameter : spec.parameters()) {
    AddParameters(parameter, parameter_names_, log_scaled_);
  }
  for (size_t i = 0; i < parameter_names_.size(); ++i) {
    parameter_index_.emplace(parameter_names_[i], static_cast<int>(i));
  }
}

v1::DashboardTrial StudyTable::RowOf(const v1::Trial& trial) const {
  v1::DashboardTrial row;
  row.set_id(trial.id());
  row.set_state(trial.state());
  const bool final = trial.has_final_measurement();
  const v1::Measurement& measurement =
      final ? trial.final_measurement() : trial.latest_measurement();
  row.set_final(final);
  for (const std::string& metric_id : metric_ids_) {
    double value = kMissing;
    for (const v1::Metric& metric : measurement.metrics()) {
      if (metric.metric_id() == metric_id) value = metric.value();
    }
    row.add_metrics(value);
  }
  row.mutable_parameters()->Resize(static_cast<int>(parameter_names_.size()), kMissing);
  for (int position = 0; position < trial.parameters_size(); ++position) {
    const v1::ParameterValue& parameter = trial.parameters(position);
    // A trial's parameters mostly come in the columns' order.
    int index = -1;
    if (static_cast<size_t>(position) < parameter_names_.size() &&
        parameter_names_[static_cast<size_t>(position)] == parameter.parameter_name()) {
      index = position;
    } else if (const auto found = parameter_index_.find(parameter.parameter_name());
               found != parameter_index_.end()) {
      index = found->second;
    } else {
      continue;
    }
    switch (parameter.value_case()) {
      case v1::ParameterValue::kDoubleValue:
        row.set_parameters(index, parameter.double_value());
        break;
      case v1::ParameterValue::kIntValue:
        row.set_parameters(index, static_cast<double>(parameter.int_value()));
        break;
      case v1::ParameterValue::kStringValue:
        (*row.mutable_labels())[index] = parameter.string_value();
        break;
      case v1::ParameterValue::VALUE_NOT_SET:
        break;
    }
  }
  row.set_measurement_count(trial.measurement_count());
  if (trial.has_start_time()) row.set_start_seconds(Seconds(trial.start_time()));
  if (trial.has_end_time()) row.set_end_seconds(Seconds(trial.end_time()));
  return row;
}

bool StudyTable::Apply(const v1::Trial& trial) { return ApplyRow(RowOf(trial)); }

bool StudyTable::ApplyRow(v1::DashboardTrial row) {
  const int64_t id = row.id();
  const v1::Trial::State state = row.state();
  // Rows mostly come in id order: the last one's place is checked first.
  const auto at = !rows_.empty() && rows_.back().id() < id
                      ? rows_.end()
                      : std::lower_bound(rows_.begin(), rows_.end(), id, ById);
  const size_t index = static_cast<size_t>(at - rows_.begin());
  if (at != rows_.end() && at->id() == id) {
    // NaN != NaN: compare the rows' bytes-equal fields, NaNs as equal.
    google::protobuf::util::MessageDifferencer same;
    same.set_float_comparison(google::protobuf::util::MessageDifferencer::EXACT);
    google::protobuf::util::DefaultFieldComparator comparator;
    comparator.set_treat_nan_as_equal(true);
    same.set_field_comparator(&comparator);
    if (same.Compare(*at, row)) return false;
    *at = std::move(row);
    changed_[index] = ++sequence_;
  } else {
    rows_.insert(at, std::move(row));
    changed_.insert(changed_.begin() + static_cast<std::ptrdiff_t>(index), ++sequence_);
  }
  if (tuner::IsPending(state)) {
    pending_.insert(id);
  } else {
    pending_.erase(id);
  }
  return true;
}

std::vector<const v1::DashboardTrial*> StudyTable::ChangedSince(int64_t sequence) const {
  std::vector<const v1::DashboardTrial*> changed;
  if (sequence >= sequence_) return changed;
  for (size_t i = 0; i < rows_.size(); ++i) {
    if (changed_[i] > sequence) changed.push_back(&rows_[i]);
  }
  return changed;
}

}  // namespace vernier::http
