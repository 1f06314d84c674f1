#include "tuner/objective_curve_cache.h"

#include <algorithm>
#include <iterator>
#include <optional>
#include <utility>

#include "absl/strings/str_format.h"
#include "tuner/storage/trial_ranking.h"

namespace vernier::tuner {
namespace {

// The states of a trial with a curve: running, or ended with a final
// measurement.
constexpr v1::Trial::State kStatesWithCurves[] = {v1::Trial::ACTIVE, v1::Trial::STOPPING,
                                                  v1::Trial::SUCCEEDED, v1::Trial::STOPPED_EARLY};

bool HasCurve(v1::Trial::State state) {
  return std::find(std::begin(kStatesWithCurves), std::end(kStatesWithCurves), state) !=
         std::end(kStatesWithCurves);
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
                                          StudyCurves& cached, std::vector<int64_t>& read_in_full) {
  TrialState& state = entry->second;
  v1::Trial trial;
  if (!trial.ParseFromString(body.bytes)) {
    return absl::InternalError(absl::StrFormat(
        "study \"%s\" trial %d: its stored body does not parse as a trial", study_name, body.id));
  }
  state.status.state = trial.state();
  state.status.status_reason =
      trial.state() == v1::Trial::STOPPING ? trial.status_reason() : std::string();
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
    read_in_full.push_back(body.id);
  }
  return absl::OkStatus();
}

absl::Status ObjectiveCurveCache::ReadInFull(std::string_view study_name,
                                             std::string_view metric_id,
                                             std::span<const int64_t> ids, StudyCurves& cached) {
  // Its curve from every measurement of a trial read in full.
  auto take = [&](const v1::Trial& full) {
    auto entry = cached.trials.find(full.id());
    if (entry == cached.trials.end() || entry->second.index < 0) return;
    suggest::LearningCurve& curve = cached.curves[entry->second.index];
    curve.points.clear();
    for (const v1::Measurement& measurement : full.measurements()) {
      AppendObjective(measurement, metric_id, curve.points);
    }
    entry->second.measurement_count = full.measurements_size();
  };
  if (ids.size() <= kReadAloneAtMost) {
    for (const int64_t id : ids) {
      absl::StatusOr<v1::Trial> full = storage_.GetTrial(study_name, id, true);
      if (!full.ok()) return full.status();
      take(*full);
    }
    return absl::OkStatus();
  }
  // Many (a study's first decision on this server): the study's trials with
  // curves, a page of them at a time, each page one read.
  storage::TrialQuery query;
  query.states.assign(std::begin(kStatesWithCurves), std::end(kStatesWithCurves));
  query.page_size = kTrialsPerPage;
  query.include_measurements = true;
  auto wanted = ids.begin();
  for (;;) {
    absl::StatusOr<storage::Page<v1::Trial>> page = storage_.ListTrials(study_name, query);
    if (!page.ok()) return page.status();
    // Both ordered by id.
    for (const v1::Trial& trial : page->items) {
      while (wanted != ids.end() && *wanted < trial.id()) ++wanted;
      if (wanted != ids.end() && *wanted == trial.id()) take(trial);
    }
    if (page->next_page_token.empty() || wanted == ids.end()) return absl::OkStatus();
    query.page_token = page->next_page_token;
  }
}

absl::Status ObjectiveCurveCache::Update(const v1::Study& study, StudyCurves& cached) {
  const std::string create_time = study.create_time().SerializeAsString();
  std::string since;
  {
    absl::ReaderMutexLock lock(&cached.mutex);
    if (cached.create_time == create_time) since = cached.horizon;
  }
  absl::StatusOr<storage::TrialChanges> changes = storage_.ListTrialChanges(study.name(), since);
  if (!changes.ok()) return changes.status();

  absl::MutexLock lock(&cached.mutex);
  if (cached.create_time != create_time) {
    cached.trials.clear();
    cached.curves.clear();
    cached.create_time = create_time;
  }
  const std::string metric_id =
      study.spec().metrics().empty() ? "" : study.spec().metrics(0).metric_id();
  // Both are ordered by id: one walk finds each trial's entry. Trials that
  // grew by more than one measurement are read in full afterwards, together.
  std::vector<int64_t> read_in_full;
  auto entry = cached.trials.begin();
  for (storage::SerializedTrial& body : changes->trials) {
    while (entry != cached.trials.end() && entry->first < body.id) ++entry;
    if (entry == cached.trials.end() || entry->first != body.id) {
      entry = cached.trials.emplace_hint(entry, body.id, TrialState{});
    }
    if (entry->second.bytes == body.bytes) continue;
    if (absl::Status refreshed =
            Refresh(study.name(), metric_id, body, entry, cached, read_in_full);
        !refreshed.ok()) {
      // Not half-read: the horizon stays, so the next call reads it anew.
      if (entry->second.index >= 0) RemoveCurve(entry, cached);
      cached.trials.erase(entry);
      return refreshed;
    }
    entry->second.bytes = std::move(body.bytes);
  }
  if (absl::Status read = ReadInFull(study.name(), metric_id, read_in_full, cached); !read.ok()) {
    // Not half-read: the horizon stays, and these are read anew next time.
    for (const int64_t id : read_in_full) {
      auto unread = cached.trials.find(id);
      if (unread == cached.trials.end()) continue;
      if (unread->second.index >= 0) RemoveCurve(unread, cached);
      cached.trials.erase(unread);
    }
    return read;
  }
  cached.horizon = std::move(changes->horizon);
  return absl::OkStatus();
}

absl::Status ObjectiveCurveCache::Read(
    const v1::Study& study, int64_t trial_id,
    absl::FunctionRef<void(const TrialStatus*, std::span<const suggest::LearningCurve>)> read) {
  const std::shared_ptr<StudyCurves> cached = Study(study.name());
  // Refreshes begun before this call came may have read the store before
  // its trial's latest write; one begun after it has not.
  const int64_t arrival = cached->begun.load();
  {
    absl::MutexLock lock(&cached->refresh);
    if (cached->applied <= arrival) {
      const int64_t mine = cached->begun.fetch_add(1) + 1;
      if (absl::Status updated = Update(study, *cached); !updated.ok()) return updated;
      cached->applied = mine;
    }
  }
  // Read beside the study's other reports; a refresh that comes in between
  // waits for them.
  absl::ReaderMutexLock lock(&cached->mutex);
  const auto trial = cached->trials.find(trial_id);
  read(trial == cached->trials.end() ? nullptr : &trial->second.status, cached->curves);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<suggest::LearningCurve>> ObjectiveCurveCache::Curves(
    const v1::Study& study) {
  std::vector<suggest::LearningCurve> copy;
  absl::Status read =
      Read(study, 0, [&](const TrialStatus*, std::span<const suggest::LearningCurve> curves) {
        copy.assign(curves.begin(), curves.end());
      });
  if (!read.ok()) return read;
  return copy;
}

}  // namespace vernier::tuner
