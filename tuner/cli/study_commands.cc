#include "tuner/cli/study_commands.h"

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "suggest/designers/designer_factory.h"
#include "suggest/early_stopping/early_stopping_policy_factory.h"
#include "suggest/search_space.h"
#include "text/control_chars.h"
#include "tuner/cli/auth_commands.h"
#include "tuner/cli/curve_chart.h"
#include "tuner/cli/fetch_all_pages.h"
#include "tuner/cli/table_printer.h"
#include "tuner/cli/time_format.h"
#include "tuner/cli/trial_count_format.h"
#include "tuner/cli/trial_format.h"
#include "tuner/storage/trial_ranking.h"
#include "tuner/training_output_builder.h"
#include "vernier/v1/job_service.pb.h"
#include "vernier/v1/study_service.pb.h"

namespace vernier::cli {
namespace {

// Enough for any study in one request on servers that honour it; the
// loops still follow page tokens for servers that cap pages lower.
constexpr int kPageSize = 1000;

std::string FormatLastStep(const v1::Trial& trial) {
  if (trial.has_final_measurement()) return absl::StrCat(trial.final_measurement().step());
  if (trial.has_latest_measurement()) return absl::StrCat(trial.latest_measurement().step());
  return "-";
}

// "model in {dnn}", "layers in {3, 4}": when a conditional parameter is
// active.
std::string FormatCondition(const v1::ParameterSpec& parent,
                            const v1::ConditionalParameterSpec& child) {
  std::vector<std::string> values;
  for (const std::string& value : child.parent_categorical_values().values()) {
    values.push_back(value);
  }
  for (int64_t value : child.parent_int_values().values()) values.push_back(absl::StrCat(value));
  for (double value : child.parent_discrete_values().values()) {
    v1::ParameterValue number;
    number.set_double_value(value);
    values.push_back(suggest::FormatParameterValue(number));
  }
  return absl::StrCat(parent.parameter_name(), " in {", absl::StrJoin(values, ", "), "}");
}

std::string ObjectiveMetricId(const v1::Study& study) {
  return study.spec().metrics().empty() ? std::string() : study.spec().metrics(0).metric_id();
}

std::string FormatBounds(const v1::ParameterSpec& parameter) {
  switch (parameter.type()) {
    case v1::ParameterSpec::DOUBLE:
      return absl::StrCat("[", parameter.min_value(), ", ", parameter.max_value(), "]");
    case v1::ParameterSpec::INTEGER:
      return absl::StrCat("[", static_cast<int64_t>(parameter.min_value()), ", ",
                          static_cast<int64_t>(parameter.max_value()), "]");
    case v1::ParameterSpec::CATEGORICAL:
      return absl::StrCat("{", absl::StrJoin(parameter.categorical_values(), ", "), "}");
    case v1::ParameterSpec::DISCRETE:
      return absl::StrCat("{", absl::StrJoin(parameter.discrete_values(), ", "), "}");
    default:
      return "-";
  }
}

std::string FormatScale(const v1::ParameterSpec& parameter) {
  if (parameter.type() == v1::ParameterSpec::CATEGORICAL) return "-";
  if (parameter.scale_type() == v1::ParameterSpec::NONE) return "NONE (linear)";
  return v1::ParameterSpec::ScaleType_Name(parameter.scale_type());
}

std::string FormatLimit(int32_t limit) {
  return limit == 0 ? std::string("unlimited") : absl::StrCat(limit);
}

// Several proto messages as the fields of one JSON document.
absl::StatusOr<google::protobuf::Struct> ComposeJson(
    std::vector<std::pair<std::string, const google::protobuf::Message*>> fields) {
  google::protobuf::Struct document;
  for (const auto& [name, message] : fields) {
    absl::StatusOr<std::string> json = ToJson(*message, JsonLayout::kOneLine);
    if (!json.ok()) return json.status();
    google::protobuf::Struct& field = *(*document.mutable_fields())[name].mutable_struct_value();
    const auto parsed = google::protobuf::util::JsonStringToMessage(*json, &field);
    if (!parsed.ok()) {
      return absl::InternalError(absl::StrCat("cannot compose the JSON field ", name, ": ",
                                              std::string(parsed.message())));
    }
  }
  return document;
}

}  // namespace

absl::StatusOr<v1::Trial::State> ParseTrialState(std::string_view name) {
  std::string canonical;
  for (char c : name) {
    canonical += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  v1::Trial::State state;
  if (canonical != "STATE_UNSPECIFIED" && v1::Trial::State_Parse(canonical, &state)) {
    return state;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown trial state \"", std::string(name),
                   "\" (expected requested, active, stopping, succeeded, failed, infeasible or "
                   "stopped-early)"));
}

StudyCommands::StudyCommands(VernierClient* client, CommandContext context)
    : client_(client), context_(std::move(context)) {}

absl::Status StudyCommands::PrintJson(const google::protobuf::Message& message) {
  absl::StatusOr<std::string> json = ToJson(message, JsonLayout::kIndented);
  if (!json.ok()) return json.status();
  *context_.out << *json << '\n';
  return absl::OkStatus();
}

absl::StatusOr<std::vector<v1::Trial>> StudyCommands::FetchTrials(
    const std::string& study_name, const std::vector<v1::Trial::State>& states) {
  v1::ListTrialsRequest request;
  request.set_study_name(study_name);
  request.set_page_size(kPageSize);
  for (v1::Trial::State state : states) request.add_states(state);
  std::vector<v1::Trial> trials;
  absl::Status fetched = FetchAllPages(
      client_->address(),
      [&](const std::string& page_token) {
        request.set_page_token(page_token);
        return client_->ListTrials(request);
      },
      [&](v1::ListTrialsResponse& page) {
        for (v1::Trial& trial : *page.mutable_trials()) trials.push_back(std::move(trial));
      });
  if (!fetched.ok()) return fetched;
  return trials;
}

absl::Status StudyCommands::Leaderboard(const std::string& study_name, int top) {
  absl::StatusOr<v1::Study> study = client_->GetStudy(study_name);
  if (!study.ok()) return study.status();
  absl::StatusOr<v1::ListOptimalTrialsResponse> optimal =
      client_->ListOptimalTrials(study_name, top);
  if (!optimal.ok()) return optimal.status();
  if (context_.format == OutputFormat::kJson) return PrintJson(*optimal);

  *context_.out << "Study " << text::ControlChars::ForTerminal(study->name()) << ", metrics: "
                << text::ControlChars::ForTerminal(FormatMetricSpecs(study->spec())) << "\n";
  if (optimal->trials().empty()) {
    *context_.out << "No completed trials yet.\n";
    return absl::OkStatus();
  }
  // One metric: OBJECTIVE; several (objectives and outcome constraints): a
  // column each, under its own name.
  std::vector<std::string> metric_ids;
  if (study->spec().metrics_size() > 1) {
    for (const v1::MetricSpec& metric : study->spec().metrics()) {
      metric_ids.push_back(metric.metric_id());
    }
    *context_.out << (tuner::ObjectiveCount(study->spec()) > 1
                          ? "The Pareto front: no other trial is as good on every objective and "
                            "better on one.\n"
                          : "")
                  << (study->spec().metrics_size() > tuner::ObjectiveCount(study->spec())
                          ? "Trials that miss an outcome constraint rank below every trial that "
                            "meets them all.\n"
                          : "");
  } else {
    metric_ids.push_back(ObjectiveMetricId(*study));
  }
  std::vector<std::string> header = {"RANK", "TRIAL", "STATE"};
  if (study->spec().metrics_size() > 1) {
    header.insert(header.end(), metric_ids.begin(), metric_ids.end());
  } else {
    header.push_back("OBJECTIVE");
  }
  for (const char* name : {"PARAMETERS", "STEP", "DURATION"}) header.emplace_back(name);
  const int metric_columns = static_cast<int>(metric_ids.size());
  TablePrinter table(header);
  for (int column = 0; column < 2; ++column) {
    table.SetAlignment(column, TablePrinter::Alignment::kRight);
  }
  for (int column = 3; column < 3 + metric_columns; ++column) {
    table.SetAlignment(column, TablePrinter::Alignment::kRight);
  }
  table.SetAlignment(4 + metric_columns, TablePrinter::Alignment::kRight);
  table.SetAlignment(5 + metric_columns, TablePrinter::Alignment::kRight);
  int rank = 0;
  for (const v1::Trial& trial : optimal->trials()) {
    std::vector<std::string> row = {absl::StrCat(++rank), absl::StrCat(trial.id()),
                                    v1::Trial::State_Name(trial.state())};
    for (const std::string& metric_id : metric_ids) {
      row.push_back(FormatMetricValue(trial, metric_id));
    }
    row.push_back(FormatParameters(trial));
    row.push_back(FormatLastStep(trial));
    row.push_back(FormatElapsed(trial.start_time(), trial.end_time(), context_.now()));
    table.AddRow(row);
  }
  table.Print(*context_.out);
  return absl::OkStatus();
}

absl::Status StudyCommands::ListTrials(const std::string& study_name,
                                       const std::vector<v1::Trial::State>& states) {
  absl::StatusOr<v1::Study> study = client_->GetStudy(study_name);
  if (!study.ok()) return study.status();
  absl::StatusOr<std::vector<v1::Trial>> trials = FetchTrials(study_name, states);
  if (!trials.ok()) return trials.status();
  if (context_.format == OutputFormat::kJson) {
    v1::ListTrialsResponse all;
    for (v1::Trial& trial : *trials) *all.add_trials() = std::move(trial);
    return PrintJson(all);
  }
  if (trials->empty()) {
    *context_.out << "No trials.\n";
    return absl::OkStatus();
  }
  const std::string metric_id = ObjectiveMetricId(*study);
  bool any_reason = false;
  for (const v1::Trial& trial : *trials) any_reason |= !trial.status_reason().empty();
  std::vector<std::string> headers = {"TRIAL",      "STATE", "OBJECTIVE",
                                      "PARAMETERS", "STEP",  "DURATION"};
  if (any_reason) headers.push_back("REASON");
  const int columns = static_cast<int>(headers.size());
  TablePrinter table(std::move(headers));
  // A failure's reason keeps its lines (a traceback's), under its column.
  if (any_reason) table.KeepLinesInLastColumn(columns);
  for (int column : {0, 2, 4, 5}) table.SetAlignment(column, TablePrinter::Alignment::kRight);
  for (const v1::Trial& trial : *trials) {
    std::vector<std::string> row = {
        absl::StrCat(trial.id()),
        v1::Trial::State_Name(trial.state()),
        FormatMetricValue(trial, metric_id),
        FormatParameters(trial),
        FormatLastStep(trial),
        FormatElapsed(trial.start_time(), trial.end_time(), context_.now())};
    if (any_reason) row.push_back(trial.status_reason());
    table.AddRow(std::move(row));
  }
  table.Print(*context_.out);
  return absl::OkStatus();
}

absl::Status StudyCommands::DescribeTrial(const std::string& study_name, int64_t trial_id) {
  absl::StatusOr<v1::Study> study = client_->GetStudy(study_name);
  if (!study.ok()) return study.status();
  absl::StatusOr<v1::Trial> trial = client_->GetTrial(study_name, trial_id);
  if (!trial.ok()) return trial.status();
  if (context_.format == OutputFormat::kJson) return PrintJson(*trial);

  const std::string metric_id = ObjectiveMetricId(*study);
  TablePrinter fields;
  fields.KeepLinesInLastColumn(2);  // the reason's lines
  fields.AddRow({"Trial:", absl::StrCat(trial->id(), " of study ", study->name())});
  fields.AddRow({"State:", v1::Trial::State_Name(trial->state())});
  if (!trial->status_reason().empty()) fields.AddRow({"Reason:", trial->status_reason()});
  fields.AddRow({"Parameters:", FormatParameters(*trial)});
  fields.AddRow({"Started:", FormatTimestamp(trial->start_time(), context_.time_zone)});
  fields.AddRow({"Ended:", FormatTimestamp(trial->end_time(), context_.time_zone)});
  fields.AddRow(
      {"Duration:", FormatElapsed(trial->start_time(), trial->end_time(), context_.now())});
  if (trial->has_final_measurement()) {
    fields.AddRow({"Final:", absl::StrCat(absl::StrJoin(trial->final_measurement().metrics(), ", ",
                                                        [](std::string* out, const v1::Metric& m) {
                                                          absl::StrAppend(out, m.metric_id(), "=",
                                                                          m.value());
                                                        }),
                                          " at step ", trial->final_measurement().step())});
  }
  fields.AddRow({"Measurements:", absl::StrCat(trial->measurements_size())});
  fields.Print(*context_.out);
  if (trial->measurements().empty()) return absl::OkStatus();

  // Every metric any measurement has, the objective first.
  std::vector<std::string> metrics;
  if (!metric_id.empty()) metrics.push_back(metric_id);
  for (const v1::Measurement& measurement : trial->measurements()) {
    for (const v1::Metric& metric : measurement.metrics()) {
      if (std::find(metrics.begin(), metrics.end(), metric.metric_id()) == metrics.end()) {
        metrics.push_back(metric.metric_id());
      }
    }
  }
  std::vector<std::string> headers = {"STEP", "ELAPSED"};
  headers.insert(headers.end(), metrics.begin(), metrics.end());
  TablePrinter table(headers);
  for (size_t column = 0; column < headers.size(); ++column) {
    table.SetAlignment(static_cast<int>(column), TablePrinter::Alignment::kRight);
  }
  // A long curve: its first rows and its last ones (json has them all).
  constexpr int kHead = 5;
  constexpr int kTail = 20;
  const int count = trial->measurements_size();
  for (int i = 0; i < count; ++i) {
    if (count > kHead + kTail + 1 && i == kHead) {
      std::vector<std::string> gap(headers.size(), "");
      gap[0] = absl::StrCat("(", count - kHead - kTail, " more)");
      table.AddRow(std::move(gap));
      i = count - kTail - 1;
      continue;
    }
    const v1::Measurement& measurement = trial->measurements(i);
    std::vector<std::string> row = {
        absl::StrCat(measurement.step()),
        FormatCompactDuration(absl::Seconds(measurement.elapsed_seconds()))};
    for (const std::string& metric : metrics) {
      const std::optional<double> value = FindMetric(measurement, metric);
      row.push_back(value.has_value() ? absl::StrCat(*value) : "-");
    }
    table.AddRow(std::move(row));
  }
  *context_.out << "\n";
  table.Print(*context_.out);

  std::vector<CurvePoint> curve;
  for (const v1::Measurement& measurement : trial->measurements()) {
    if (std::optional<double> value = FindMetric(measurement, metric_id)) {
      curve.push_back({measurement.step(), *value});
    }
  }
  // As many rows as points, from 3 to 10.
  const int rows = std::clamp(static_cast<int>(curve.size()), 3, 10);
  const std::string chart = RenderCurveChart(curve, /*width=*/60, rows);
  if (!chart.empty()) {
    *context_.out << "\n"
                  << (metric_id.empty() ? "objective" : text::ControlChars::ForTerminal(metric_id))
                  << " by step:\n"
                  << chart;
  }
  return absl::OkStatus();
}

absl::Status StudyCommands::ListStudies() {
  v1::ListStudiesResponse all;
  absl::Status fetched = FetchAllPages(
      client_->address(),
      [&](const std::string& page_token) { return client_->ListStudies(kPageSize, page_token); },
      [&](v1::ListStudiesResponse& page) {
        for (v1::Study& study : *page.mutable_studies()) *all.add_studies() = std::move(study);
      });
  if (!fetched.ok()) return fetched;

  if (context_.format == OutputFormat::kJson) return PrintJson(all);
  if (all.studies().empty()) {
    *context_.out << "No studies.\n";
    return absl::OkStatus();
  }
  TablePrinter table({"NAME", "STATE", "ALGORITHM", "METRICS", "MAX_TRIALS", "CREATED"});
  table.SetAlignment(4, TablePrinter::Alignment::kRight);
  for (const v1::Study& study : all.studies()) {
    table.AddRow({study.name(), v1::Study::State_Name(study.state()),
                  v1::Algorithm_Name(suggest::RunningAlgorithm(study.spec())),
                  FormatMetricSpecs(study.spec()), FormatLimit(study.spec().max_trials()),
                  FormatTimestamp(study.create_time(), context_.time_zone)});
  }
  table.Print(*context_.out);
  return absl::OkStatus();
}

absl::Status StudyCommands::Describe(const std::string& study_name) {
  absl::StatusOr<v1::Study> study = client_->GetStudy(study_name);
  if (!study.ok()) return study.status();
  absl::StatusOr<std::vector<v1::Trial>> trials = FetchTrials(study_name, {});
  if (!trials.ok()) return trials.status();
  const v1::TrialCounts counts = tuner::CountTrialStates(*trials);

  if (context_.format == OutputFormat::kJson) {
    absl::StatusOr<google::protobuf::Struct> document =
        ComposeJson({{"study", &*study}, {"trialCounts", &counts}});
    if (!document.ok()) return document.status();
    return PrintJson(*document);
  }

  const v1::StudySpec& spec = study->spec();
  TablePrinter fields;
  fields.AddRow({"Study:", study->name()});
  if (!study->display_name().empty()) fields.AddRow({"Display name:", study->display_name()});
  fields.AddRow({"State:", v1::Study::State_Name(study->state())});
  // Studies stored before owners existed have none.
  if (!study->owner().empty()) fields.AddRow({"Owner:", study->owner()});
  if (!study->grants().empty()) fields.AddRow({"Shared with:", FormatGrants(study->grants())});
  fields.AddRow({"Created:", FormatTimestamp(study->create_time(), context_.time_zone)});
  fields.AddRow({"Algorithm:", suggest::DescribeAlgorithm(spec)});
  fields.AddRow({"Seed:", absl::StrCat(spec.seed())});
  fields.AddRow({"Metrics:", FormatMetricSpecs(study->spec())});
  fields.AddRow({"Limits:", absl::StrCat("max trials ", FormatLimit(spec.max_trials()),
                                         ", max parallel ", FormatLimit(spec.max_parallel_trials()),
                                         ", max failed ", FormatLimit(spec.max_failed_trials()))});
  fields.AddRow({"Early stopping:", suggest::DescribeEarlyStopping(spec.early_stopping())});
  fields.AddRow({"Trials:", absl::StrCat(trials->size(), " (", FormatTrialCounts(counts), ")")});
  fields.Print(*context_.out);

  *context_.out << "\nParameters:\n";
  // A conditional space adds the condition that makes each child active.
  std::map<const v1::ParameterSpec*, std::string> conditions;
  for (const v1::ParameterSpec* parent : suggest::FlattenParameterSpecs(spec.parameters())) {
    for (const v1::ConditionalParameterSpec& child : parent->conditional_parameter_specs()) {
      conditions[&child.parameter_spec()] = FormatCondition(*parent, child);
    }
  }
  std::vector<std::string> header = {"NAME", "TYPE", "VALUES", "SCALE"};
  if (!conditions.empty()) header.push_back("ACTIVE WHEN");
  TablePrinter parameters(header);
  parameters.SetIndent(2);
  for (const v1::ParameterSpec* parameter : suggest::FlattenParameterSpecs(spec.parameters())) {
    std::vector<std::string> row = {parameter->parameter_name(),
                                    v1::ParameterSpec::Type_Name(parameter->type()),
                                    FormatBounds(*parameter), FormatScale(*parameter)};
    if (!conditions.empty()) {
      const auto condition = conditions.find(parameter);
      row.push_back(condition == conditions.end() ? "-" : condition->second);
    }
    parameters.AddRow(row);
  }
  parameters.Print(*context_.out);
  return absl::OkStatus();
}

absl::Status StudyCommands::Delete(const std::string& study_name) {
  if (absl::Status deleted = client_->DeleteStudy(study_name); !deleted.ok()) return deleted;
  if (context_.format == OutputFormat::kJson) return PrintJson(v1::DeleteStudyResponse());
  *context_.out << "Deleted study " << study_name << ".\n";
  return absl::OkStatus();
}

}  // namespace vernier::cli
