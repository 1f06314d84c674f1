#include "tuner/training_output_builder.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "suggest/search_space.h"
#include "tuner/storage/trial_ranking.h"
#include "tuner/storage/trial_states.h"

namespace vernier::tuner {
namespace {

std::string ValueText(const v1::ParameterValue& value) {
  const std::string formatted = suggest::FormatParameterValue(value);
  // FormatParameterValue gives "name=value"; trainingOutput maps name -> value.
  const size_t equals = formatted.find('=');
  return equals == std::string::npos ? formatted : formatted.substr(equals + 1);
}

v1::HyperparameterOutput ToOutput(const v1::Trial& trial, const v1::StudySpec& spec) {
  v1::HyperparameterOutput output;
  output.set_trial_id(absl::StrCat(trial.id()));
  for (const v1::ParameterValue& value : trial.parameters()) {
    (*output.mutable_hyperparameters())[value.parameter_name()] = ValueText(value);
  }
  if (std::optional<double> objective = FinalObjective(trial, spec)) {
    output.mutable_final_metric()->set_training_step(trial.final_measurement().step());
    output.mutable_final_metric()->set_objective_value(*objective);
  }
  if (spec.metrics_size() > 1 && trial.has_final_measurement()) {
    for (const v1::MetricSpec& metric : spec.metrics()) {
      if (std::optional<double> value =
              MetricValue(trial.final_measurement(), metric.metric_id())) {
        v1::Metric* final_metric = output.add_final_metrics();
        final_metric->set_metric_id(metric.metric_id());
        final_metric->set_value(*value);
      }
    }
  }
  output.set_is_trial_stopped_early(trial.state() == v1::Trial::STOPPED_EARLY);
  if (trial.has_start_time()) *output.mutable_start_time() = trial.start_time();
  if (trial.has_end_time()) *output.mutable_end_time() = trial.end_time();
  output.set_state(trial.state());
  output.set_resumed(IsResumedCopy(trial));
  return output;
}

constexpr std::string_view kResumedClientPrefix = "resumed:";

}  // namespace

v1::TrainingOutput BuildTrainingOutput(const v1::StudySpec& spec,
                                       std::span<const v1::Trial> trials) {
  v1::TrainingOutput output;
  output.set_is_hyperparameter_tuning_job(true);
  if (!spec.metrics().empty()) output.set_hyperparameter_metric_tag(spec.metrics(0).metric_id());
  std::set<int64_t> listed;
  for (const v1::Trial& trial : RankTrials(trials, spec, 0)) {
    *output.add_trials() = ToOutput(trial, spec);
    listed.insert(trial.id());
  }
  int64_t completed = 0;
  int64_t resumed = 0;
  for (const v1::Trial& trial : trials) {
    const bool copy = IsResumedCopy(trial);
    resumed += copy ? 1 : 0;
    if (HasEnded(trial.state()) && !copy) ++completed;
    if (!listed.contains(trial.id())) *output.add_trials() = ToOutput(trial, spec);
  }
  output.set_completed_trial_count(completed);
  output.set_resumed_trial_count(resumed);
  *output.mutable_trial_counts() = CountTrialStates(trials);
  return output;
}

v1::TrialCounts CountTrialStates(std::span<const v1::Trial> trials) {
  std::map<v1::Trial::State, int64_t> by_state;
  for (const v1::Trial& trial : trials) ++by_state[trial.state()];
  return CountTrialStates(by_state);
}

v1::TrialCounts CountTrialStates(const std::map<v1::Trial::State, int64_t>& by_state) {
  v1::TrialCounts counts;
  for (const auto& [state, n] : by_state) {
    const int32_t count = static_cast<int32_t>(n);
    switch (state) {
      case v1::Trial::REQUESTED:
        counts.set_requested(counts.requested() + count);
        break;
      case v1::Trial::ACTIVE:
      case v1::Trial::STOPPING:
        counts.set_active(counts.active() + count);
        break;
      case v1::Trial::SUCCEEDED:
        counts.set_succeeded(counts.succeeded() + count);
        break;
      case v1::Trial::FAILED:
        counts.set_failed(counts.failed() + count);
        break;
      case v1::Trial::INFEASIBLE:
        counts.set_infeasible(counts.infeasible() + count);
        break;
      case v1::Trial::STOPPED_EARLY:
        counts.set_stopped_early(counts.stopped_early() + count);
        break;
      case v1::Trial::CANCELLED:
        counts.set_cancelled(counts.cancelled() + count);
        break;
      default:
        break;
    }
  }
  return counts;
}

int64_t EndedTrials(const v1::TrialCounts& counts) {
  return int64_t{counts.succeeded()} + counts.failed() + counts.infeasible() +
         counts.stopped_early() + counts.cancelled();
}

std::string ResumedClientId(std::string_view previous_job_id) {
  return absl::StrCat(std::string(kResumedClientPrefix), std::string(previous_job_id));
}

bool IsResumedCopy(const v1::Trial& trial) {
  return trial.client_id().starts_with(kResumedClientPrefix);
}

}  // namespace vernier::tuner
