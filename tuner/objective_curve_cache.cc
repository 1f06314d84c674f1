#include "tuner/objective_curve_cache.h"

#include <optional>
#include <utility>

#include "tuner/storage/trial_ranking.h"

namespace vernier::tuner {
namespace {

bool HasCurve(v1::Trial::State state) {
  return state == v1::Trial::ACTIVE || state == v1::Trial::STOPPING ||
         state == v1::Trial::SUCCEEDED || state == v1::Trial::STOPPED_EARLY;
}

void AppendObjective(const v1::Measurement& measurement, std::string_view metric_id,
                     std::vector<suggest::CurvePoint>& points) {
  if (std::optional<double> value = MetricValue(measurement, metric_id)) {
    points.push_back({measurement.step(), *value});
  }
}

}  // namespace

ObjectiveCurveCache::StudyCurves& ObjectiveCurveCache::Study(std::string_view study_name) {
  absl::MutexLock lock(&mutex_);
  auto it = studies_.find(study_name);
  if (it == studies_.end()) {
    it = studies_.emplace(std::string(study_name), std::make_unique<StudyCurves>()).first;
  }
  return *it->second;
}

void ObjectiveCurveCache::Forget(std::string_view study_name) {
  absl::MutexLock lock(&mutex_);
  if (auto it = studies_.find(study_name); it != studies_.end()) studies_.erase(it);
}

absl::StatusOr<std::vector<suggest::LearningCurve>> ObjectiveCurveCache::Curves(
    const v1::Study& study) {
  const std::string& name = study.name();
  const std::string metric_id =
      study.spec().metrics().empty() ? "" : study.spec().metrics(0).metric_id();
  absl::StatusOr<storage::Page<v1::Trial>> trials = storage_.ListTrials(name, {});
  if (!trials.ok()) return trials.status();

  StudyCurves& cached = Study(name);
  absl::MutexLock lock(&cached.mutex);
  const std::string create_time = study.create_time().SerializeAsString();
  if (cached.create_time != create_time) {
    cached.trials.clear();
    cached.create_time = create_time;
  }
  std::vector<suggest::LearningCurve> curves;
  for (const v1::Trial& trial : trials->items) {
    if (!HasCurve(trial.state())) continue;
    TrialCurve& curve = cached.trials[trial.id()];
    if (curve.measurement_count + 1 == trial.measurement_count()) {
      AppendObjective(trial.latest_measurement(), metric_id, curve.points);
      curve.measurement_count = trial.measurement_count();
    } else if (curve.measurement_count != trial.measurement_count()) {
      absl::StatusOr<v1::Trial> full = storage_.GetTrial(name, trial.id(), true);
      if (!full.ok()) return full.status();
      curve.points.clear();
      for (const v1::Measurement& measurement : full->measurements()) {
        AppendObjective(measurement, metric_id, curve.points);
      }
      curve.measurement_count = full->measurements_size();
    }
    const bool completed =
        trial.state() == v1::Trial::SUCCEEDED || trial.state() == v1::Trial::STOPPED_EARLY;
    curves.push_back({.trial_id = trial.id(), .points = curve.points, .completed = completed});
  }
  return curves;
}

}  // namespace vernier::tuner
