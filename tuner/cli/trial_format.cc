#include "tuner/cli/trial_format.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "suggest/search_space.h"

namespace vernier::cli {

std::optional<double> FindMetric(const v1::Measurement& measurement, const std::string& metric_id) {
  for (const v1::Metric& metric : measurement.metrics()) {
    if (metric_id.empty() || metric.metric_id() == metric_id) return metric.value();
  }
  return std::nullopt;
}

namespace {

std::string FormatConstraint(const v1::MetricSpec::Constraint& constraint) {
  if (constraint.has_min_value() && constraint.has_max_value()) {
    return absl::StrCat("within [", constraint.min_value(), ", ", constraint.max_value(), "]");
  }
  if (constraint.has_max_value()) return absl::StrCat("at most ", constraint.max_value());
  return absl::StrCat("at least ", constraint.min_value());
}

}  // namespace

std::string FormatMetricValue(const v1::Trial& trial, const std::string& metric_id) {
  std::optional<double> value;
  if (trial.has_final_measurement()) value = FindMetric(trial.final_measurement(), metric_id);
  if (!value.has_value() && trial.has_latest_measurement()) {
    value = FindMetric(trial.latest_measurement(), metric_id);
  }
  return value.has_value() ? absl::StrCat(*value) : "-";
}

std::string FormatParameters(const v1::Trial& trial) {
  if (trial.parameters().empty()) return "-";
  return absl::StrJoin(
      trial.parameters(), ", ", [](std::string* out, const v1::ParameterValue& value) {
        absl::StrAppend(out, value.parameter_name(), "=", suggest::FormatParameterValue(value));
      });
}

std::string FormatMetricSpecs(const v1::StudySpec& spec) {
  if (spec.metrics().empty()) return "-";
  return absl::StrJoin(spec.metrics(), ", ", [](std::string* out, const v1::MetricSpec& metric) {
    absl::StrAppend(out, metric.metric_id(), " (",
                    metric.has_constraint() ? FormatConstraint(metric.constraint())
                                            : v1::MetricSpec::Goal_Name(metric.goal()),
                    ")");
  });
}

void PrintTrialsWithMetrics(const std::vector<v1::Trial>& trials, const v1::StudySpec& spec,
                            int indent, std::ostream& out) {
  std::vector<std::string> header = {"TRIAL"};
  for (const v1::MetricSpec& metric : spec.metrics()) header.push_back(metric.metric_id());
  header.push_back("PARAMETERS");
  TablePrinter table(header);
  table.SetIndent(indent);
  for (int column = 0; column <= spec.metrics_size(); ++column) {
    table.SetAlignment(column, TablePrinter::Alignment::kRight);
  }
  for (const v1::Trial& trial : trials) {
    std::vector<std::string> row = {absl::StrCat(trial.id())};
    for (const v1::MetricSpec& metric : spec.metrics()) {
      row.push_back(FormatMetricValue(trial, metric.metric_id()));
    }
    row.push_back(FormatParameters(trial));
    table.AddRow(row);
  }
  table.Print(out);
}

}  // namespace vernier::cli
