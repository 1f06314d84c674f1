#include "tuner/objective_curve_cache.h"

#include <optional>
#include <utility>

#include "absl/strings/str_format.h"
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

std::shared_ptr<ObjectiveCurveCache::StudyCurves> ObjectiveCurveCache::Study(
    std::string_view study_name) {
  absl::MutexLock lock(&mutex_);
  auto it = studies_.find(study_name);
  if (it == studies_.end()) {
    it = studies_.emplace(std::string(study_name), std::make_shared<StudyCurves>()).first;
  }
  return it->second;
}

void ObjectiveCurveCache::Forget(std::string_view study_name) {
  absl::MutexLock lock(&mutex_);
  if (auto it = studies_.find(study_name); it != studies_.end()) studies_.erase(it);
}

void ObjectiveCurveCache::AddCurve(std::map<int64_t, TrialState>::iterator entry,
                                   StudyCurves& cached) {
  // The first later trial with a curve takes its place; none: the end.
  int index = static_cast<int>(cached.curves.size());
  for (auto later = std::next(entry); later != cached.trials.end(); ++later) {
    if (later->second.index < 0) continue;
    if (index == static_cast<int>(cached.curves.size())) index = later->second.index;
    ++later->second.index;
  }
  cached.curves.insert(cached.curves.begin() + index,
                       suggest::LearningCurve{.trial_id = entry->first, .points = {}});
  entry->second.index = index;
}

void ObjectiveCurveCache::RemoveCurve(std::map<int64_t, TrialState>::iterator entry,
                                      StudyCurves& cached) {
  cached.curves.erase(cached.curves.begin() + entry->second.index);
  entry->second.index = -1;
  for (auto later = std::next(entry); later != cached.trials.end(); ++later) {
    if (later->second.index >= 0) --later->second.index;
  }
}

absl::Status ObjectiveCurveCache::Refresh(std::string_view study_name, std::string_view metric_id,
                                          const storage::SerializedTrial& body,
                                          std::map<int64_t, TrialState>::iterator entry,
                                          StudyCurves& cached) {
  TrialState& state = entry->second;
  v1::Trial trial;
  if (!trial.ParseFromString(body.bytes)) {
    return absl::InternalError(absl::StrFormat(
        "study \"%s\" trial %d: its stored body does not parse as a trial", study_name, body.id));
  }
  if (!HasCurve(trial.state())) {
    // Its points are dropped; should it have a curve again, it is read anew.
    if (state.index >= 0) RemoveCurve(entry, cached);
    state.measurement_count = 0;
    return absl::OkStatus();
  }
  if (state.index < 0) {
    AddCurve(entry, cached);
    state.measurement_count = 0;
  }
  suggest::LearningCurve& curve = cached.curves[state.index];
  curve.completed =
      trial.state() == v1::Trial::SUCCEEDED || trial.state() == v1::Trial::STOPPED_EARLY;
  if (state.measurement_count + 1 == trial.measurement_count()) {
    AppendObjective(trial.latest_measurement(), metric_id, curve.points);
    state.measurement_count = trial.measurement_count();
  } else if (state.measurement_count != trial.measurement_count()) {
    absl::StatusOr<v1::Trial> full = storage_.GetTrial(study_name, body.id, true);
    if (!full.ok()) return full.status();
    curve.points.clear();
    for (const v1::Measurement& measurement : full->measurements()) {
      AppendObjective(measurement, metric_id, curve.points);
    }
    state.measurement_count = full->measurements_size();
  }
  return absl::OkStatus();
}

absl::Status ObjectiveCurveCache::Update(const v1::Study& study,
                                         const std::vector<storage::TrialDigest>& digests,
                                         StudyCurves& cached) {
  const std::string metric_id =
      study.spec().metrics().empty() ? "" : study.spec().metrics(0).metric_id();
  const std::string create_time = study.create_time().SerializeAsString();
  if (cached.create_time != create_time) {
    cached.trials.clear();
    cached.curves.clear();
    cached.create_time = create_time;
  }
  // Both are ordered by id: one walk finds each trial's entry.
  std::vector<std::pair<std::map<int64_t, TrialState>::iterator, const storage::TrialDigest*>>
      changed;
  auto entry = cached.trials.begin();
  for (const storage::TrialDigest& listed : digests) {
    while (entry != cached.trials.end() && entry->first < listed.id) ++entry;
    if (entry == cached.trials.end() || entry->first != listed.id) {
      entry = cached.trials.emplace_hint(entry, listed.id, TrialState{});
    }
    if (entry->second.digest != listed.digest) changed.emplace_back(entry, &listed);
  }
  if (changed.empty()) return absl::OkStatus();
  std::vector<int64_t> ids;
  ids.reserve(changed.size());
  for (const auto& [trial, listed] : changed) ids.push_back(listed->id);
  absl::StatusOr<std::vector<storage::SerializedTrial>> bodies =
      storage_.GetTrialBodies(study.name(), ids);
  if (!bodies.ok()) return bodies.status();
  // Both ordered by id; a trial gone meanwhile has no body and is left as it was.
  auto body = bodies->begin();
  for (const auto& [trial, listed] : changed) {
    while (body != bodies->end() && body->id < listed->id) ++body;
    if (body == bodies->end() || body->id != listed->id) continue;
    if (absl::Status refreshed = Refresh(study.name(), metric_id, *body, trial, cached);
        !refreshed.ok()) {
      // Not half-read: the next call reads the trial anew.
      if (trial->second.index >= 0) RemoveCurve(trial, cached);
      trial->second = TrialState{};
      return refreshed;
    }
    // The listing's digest: bytes read later than it are read again next
    // time, never missed.
    trial->second.digest = listed->digest;
  }
  return absl::OkStatus();
}

absl::Status ObjectiveCurveCache::Read(
    const v1::Study& study, absl::FunctionRef<void(std::span<const suggest::LearningCurve>)> read) {
  absl::StatusOr<std::vector<storage::TrialDigest>> digests =
      storage_.ListTrialDigests(study.name());
  if (!digests.ok()) return digests.status();
  const std::shared_ptr<StudyCurves> cached = Study(study.name());
  {
    absl::MutexLock lock(&cached->mutex);
    if (absl::Status updated = Update(study, *digests, *cached); !updated.ok()) {
      return updated;
    }
  }
  // Read beside the study's other reports; a refresh that comes in between
  // only brings the curves further up to date.
  absl::ReaderMutexLock lock(&cached->mutex);
  read(cached->curves);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<suggest::LearningCurve>> ObjectiveCurveCache::Curves(
    const v1::Study& study) {
  std::vector<suggest::LearningCurve> copy;
  absl::Status read = Read(study, [&](std::span<const suggest::LearningCurve> curves) {
    copy.assign(curves.begin(), curves.end());
  });
  if (!read.ok()) return read;
  return copy;
}

}  // namespace vernier::tuner
