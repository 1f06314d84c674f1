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
  output.set_is_trial_stopped_early(trial.state() == v1::Trial::STOPPED_EARLY);
  if (trial.has_start_time()) *output.mutable_start_time() = trial.start_time();
  if (trial.has_end_time()) *output.mutable_end_time() = trial.end_time();
  output.set_state(trial.state());
  return output;
}

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
  for (const v1::Trial& trial : trials) {
    if (HasEnded(trial.state())) ++completed;
    if (!listed.contains(trial.id())) *output.add_trials() = ToOutput(trial, spec);
  }
  output.set_completed_trial_count(completed);
  return output;
}

v1::TrialCounts CountTrialStates(std::span<const v1::Trial> trials) {
  v1::TrialCounts counts;
  for (const v1::Trial& trial : trials) {
    switch (trial.state()) {
      case v1::Trial::REQUESTED:
        counts.set_requested(counts.requested() + 1);
        break;
      case v1::Trial::ACTIVE:
      case v1::Trial::STOPPING:
        counts.set_active(counts.active() + 1);
        break;
      case v1::Trial::SUCCEEDED:
        counts.set_succeeded(counts.succeeded() + 1);
        break;
      case v1::Trial::FAILED:
        counts.set_failed(counts.failed() + 1);
        break;
      case v1::Trial::INFEASIBLE:
        counts.set_infeasible(counts.infeasible() + 1);
        break;
      case v1::Trial::STOPPED_EARLY:
        counts.set_stopped_early(counts.stopped_early() + 1);
        break;
      default:
        break;
    }
  }
  return counts;
}

}  // namespace vernier::tuner
