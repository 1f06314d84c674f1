#include "tuner/study_manager.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>
#include <random>
#include <string_view>

#include "absl/cleanup/cleanup.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/status_macros.h"
#include "google/protobuf/util/message_differencer.h"
#include "spdlog/spdlog.h"
#include "suggest/designers/designer_factory.h"
#include "suggest/early_stopping/early_stopping_policy_factory.h"
#include "suggest/search_space.h"
#include "tuner/config/hyperparameter_validator.h"
#include "tuner/storage/trial_ranking.h"
#include "tuner/storage/trial_states.h"
#include "tuner/user_attributes.h"

namespace vernier::tuner {
namespace {

using google::protobuf::util::MessageDifferencer;

// The most trials one SuggestTrials call, and one designer call, asks for.
constexpr int kMaxSuggestCount = 1000;

std::string TrialName(std::string_view study_name, int64_t trial_id) {
  return absl::StrFormat("study \"%s\" trial %d", study_name, trial_id);
}

absl::Status RequireRunning(const v1::Trial& trial, std::string_view action) {
  if (IsRunning(trial.state())) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrFormat(
      "%s is %s; %s only while it is ACTIVE or STOPPING", TrialName(trial.study_name(), trial.id()),
      v1::Trial::State_Name(trial.state()), action));
}

// Adds the designer's view of `trials` to `history`.
void AddToHistory(std::span<const v1::Trial> trials, const suggest::SearchSpace& space,
                  const v1::StudySpec& spec, suggest::DesignerHistory& history) {
  for (const v1::Trial& trial : trials) {
    absl::StatusOr<suggest::ParameterAssignment> parameters =
        space.Canonicalize(trial.parameters());
    if (!parameters.ok()) continue;  // Cannot happen for stored trials; never fatal to suggest.
    suggest::TrialObservation observation{trial.id(), std::move(*parameters), trial.state(),
                                          FinalObjective(trial, spec), FinalMetrics(trial, spec)};
    (IsPending(trial.state()) ? history.pending : history.completed)
        .push_back(std::move(observation));
  }
}

// A trial takes measurements while it runs, and while it is being stopped
// (its agent reports what it had).
constexpr v1::Trial::State kAcceptingMeasurements[] = {v1::Trial::ACTIVE, v1::Trial::STOPPING};

absl::Status ValidateReportedMeasurement(std::string_view study_name, int64_t trial_id,
                                         const v1::Measurement& measurement) {
  return ValidateMeasurement(
      measurement,
      absl::StrCat(TrialName(study_name, trial_id), " measurement at step ", measurement.step()));
}

}  // namespace

absl::Status ValidateStudyName(std::string_view study_name) {
  if (study_name.empty()) return absl::InvalidArgumentError("study name is empty");
  if (study_name.size() > 128) {
    return absl::InvalidArgumentError(
        absl::StrFormat("study name \"%s\" is %d characters long; at most 128 are allowed",
                        study_name, study_name.size()));
  }
  if (!std::isalpha(static_cast<unsigned char>(study_name[0]))) {
    return absl::InvalidArgumentError(
        absl::StrFormat("study name \"%s\" must start with a letter", study_name));
  }
  for (char c : study_name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') {
      return absl::InvalidArgumentError(absl::StrFormat(
          "study name \"%s\" may hold only letters, digits, '_' and '-', not '%c'", study_name, c));
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateMeasurement(const v1::Measurement& measurement, std::string_view where) {
  if (measurement.step() < 0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: step %d is negative", where, measurement.step()));
  }
  absl::flat_hash_map<std::string_view, int> first_index;
  for (int i = 0; i < measurement.metrics_size(); ++i) {
    const v1::Metric& metric = measurement.metrics(i);
    if (metric.metric_id().empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(std::string(where), ": a metric has no metric_id"));
    }
    if (metric.metric_id().size() > config::kMaxNameBytes) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s: metrics[%d].metric_id is %d bytes; at most %d are allowed", where, i,
                          metric.metric_id().size(), config::kMaxNameBytes));
    }
    // Which of two values would count is not for the service to guess.
    const auto [first, inserted] = first_index.emplace(metric.metric_id(), i);
    if (!inserted) {
      return absl::InvalidArgumentError(absl::StrFormat(
          "%s: metric \"%s\" appears twice (metrics[%d] and metrics[%d]); a measurement holds "
          "each metric once",
          where, metric.metric_id(), first->second, i));
    }
    if (!std::isfinite(metric.value())) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s: metric \"%s\" is %f; values must be finite", where,
                          metric.metric_id(), metric.value()));
    }
  }
  return absl::OkStatus();
}

StudyManager::StudyManager(storage::Storage& storage, Clock clock)
    : StudyManager(storage, std::move(clock), suggest::MakeDesigner) {}

StudyManager::StudyManager(storage::Storage& storage, Clock clock, DesignerFactory designers)
    : storage_(storage),
      clock_(std::move(clock)),
      designers_(std::move(designers)),
      curves_(storage),
      settled_trials_(storage) {}

StudyManager::StudyState& StudyManager::State(std::string_view study_name) {
  absl::MutexLock lock(&locks_mutex_);
  auto it = studies_.find(study_name);
  if (it == studies_.end()) {
    it = studies_.emplace(std::string(study_name), std::make_unique<StudyState>()).first;
  }
  return *it->second;
}

absl::StatusOr<v1::Study> StudyManager::CreateStudy(v1::Study study) {
  VERNIER_RETURN_IF_ERROR(ValidateStudyName(study.name()));
  VERNIER_RETURN_IF_ERROR(config::ValidateStudy(study));
  // Also validates the search space: the designer is built over it.
  if (absl::StatusOr<std::unique_ptr<suggest::Designer>> designer = designers_(study.spec());
      !designer.ok()) {
    return designer.status();
  }

  absl::MutexLock lock(&StudyLock(study.name()));
  const bool seed_chosen_by_user = study.spec().has_seed();
  absl::StatusOr<v1::Study> existing = storage_.GetStudy(study.name());
  if (existing.ok()) {
    v1::StudySpec requested = study.spec();
    if (!seed_chosen_by_user) requested.set_seed(existing->spec().seed());
    if (MessageDifferencer::Equals(requested, existing->spec())) return *existing;
    return absl::AlreadyExistsError(absl::StrFormat(
        "study \"%s\" already exists with a different spec; delete it or choose another name",
        study.name()));
  }
  if (!absl::IsNotFound(existing.status())) return existing.status();

  if (!seed_chosen_by_user) study.mutable_spec()->set_seed(std::random_device{}());
  study.set_state(v1::Study::ACTIVE);
  *study.mutable_create_time() = ToTimestamp(clock_());
  absl::StatusOr<v1::Study> created = storage_.CreateStudy(study);
  if (created.ok())
    spdlog::info("study={} created ({} parameters)", study.name(), study.spec().parameters_size());
  return created;
}

absl::StatusOr<v1::Study> StudyManager::GetStudy(std::string_view study_name) {
  return storage_.GetStudy(study_name);
}

absl::StatusOr<storage::Page<v1::Study>> StudyManager::ListStudies(int page_size,
                                                                   std::string_view page_token) {
  return storage_.ListStudies(page_size, page_token);
}

absl::Status StudyManager::DeleteStudy(std::string_view study_name) {
  absl::MutexLock lock(&StudyLock(study_name));
  settled_trials_.Forget(study_name);
  absl::Status status = storage_.DeleteStudy(study_name);
  curves_.Forget(study_name);
  if (status.ok()) spdlog::info("study={} deleted", study_name);
  return status;
}

void StudyManager::ForgetStudy(std::string_view study_name) {
  absl::MutexLock lock(&StudyLock(study_name));
  settled_trials_.Forget(study_name);
  curves_.Forget(study_name);
}

int StudyManager::WaitingSuggestions(std::string_view study_name) {
  SuggestQueue& queue = State(study_name).suggestions;
  absl::MutexLock lock(&queue.mutex);
  return static_cast<int>(queue.waiting.size());
}

absl::StatusOr<SuggestResult> StudyManager::SuggestTrials(std::string_view study_name, int count,
                                                          std::string_view client_id,
                                                          const v1::Study* known_study) {
  if (count < 1 || count > kMaxSuggestCount) {
    return absl::InvalidArgumentError(
        absl::StrFormat("count is %d; ask for 1 to %d trials", count, kMaxSuggestCount));
  }
  if (client_id.size() > config::kMaxNameBytes) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "client_id is %d bytes; at most %d are allowed", client_id.size(), config::kMaxNameBytes));
  }
  absl::StatusOr<v1::Study> study =
      known_study != nullptr ? absl::StatusOr<v1::Study>(*known_study) : storage_.GetStudy(study_name);
  if (!study.ok()) return study.status();
  if (study->state() == v1::Study::COMPLETED && study->spec().max_trials() > 0) {
    // Every one of its trials has ended: no room, as for a full study.
    SuggestResult done;
    done.reason = absl::StrFormat("the study is COMPLETED: its max_trials=%d trials have ended",
                                  study->spec().max_trials());
    return done;
  }
  if (study->state() != v1::Study::ACTIVE) {
    return absl::FailedPreconditionError(
        absl::StrFormat("study \"%s\" is %s; only ACTIVE studies suggest trials", study_name,
                        v1::Study::State_Name(study->state())));
  }
  SuggestQueue& queue = State(study_name).suggestions;
  SuggestRequest request;
  request.count = count;
  request.client_id = std::string(client_id);
  queue.mutex.Lock();
  queue.waiting.push_back(&request);
  while (!request.done) {
    if (queue.serving) {
      queue.served.Wait(&queue.mutex);
      continue;
    }
    // Take the waiting calls in order, up to what one designer call may be
    // asked for; a client_id already taken waits for the next pass, which
    // sees the trials this one gives it.
    std::vector<SuggestRequest*> batch;
    std::deque<SuggestRequest*> later;
    int batch_count = 0;
    for (SuggestRequest* waiting : queue.waiting) {
      const bool client_taken =
          !waiting->client_id.empty() &&
          std::any_of(batch.begin(), batch.end(), [&](const SuggestRequest* taken) {
            return taken->client_id == waiting->client_id;
          });
      if (client_taken || (!batch.empty() && batch_count + waiting->count > kMaxSuggestCount)) {
        later.push_back(waiting);
      } else {
        batch.push_back(waiting);
        batch_count += waiting->count;
      }
    }
    queue.waiting = std::move(later);
    queue.serving = true;
    queue.mutex.Unlock();
    ServeSuggestions(*study, batch);
    queue.mutex.Lock();
    for (SuggestRequest* served : batch) served->done = true;
    queue.serving = false;
    queue.served.SignalAll();
  }
  queue.mutex.Unlock();
  if (!request.status.ok()) return request.status;
  return std::move(request.result);
}

void StudyManager::ServeSuggestions(const v1::Study& study,
                                    std::span<SuggestRequest* const> batch) {
  absl::MutexLock lock(&StudyLock(study.name()));
  // Other servers sharing the store decide for this study in turn with us.
  absl::StatusOr<std::unique_ptr<storage::StudyLock>> shared = storage_.LockStudy(study.name());
  if (!shared.ok()) {
    for (SuggestRequest* request : batch) request->status = shared.status();
    return;
  }
  SuggestLocked(study, batch);
}

void StudyManager::SuggestLocked(const v1::Study& study, std::span<SuggestRequest* const> batch) {
  const v1::StudySpec& spec = study.spec();
  const std::string& name = study.name();
  // Only trials after the settled (all ended) ones come from the store.
  absl::StatusOr<SettledTrialCache::Snapshot> snapshot = settled_trials_.Read(study);
  if (!snapshot.ok()) {
    for (SuggestRequest* request : batch) request->status = snapshot.status();
    return;
  }
  // Every trial still pending is among these; kept as each request changes them.
  std::vector<v1::Trial>& trials = snapshot->recent;
  int running = 0;
  for (const v1::Trial& trial : trials) running += IsRunning(trial.state()) ? 1 : 0;
  int64_t total = snapshot->total();
  const absl::Time now = clock_();

  // What each request gets in turn, as if it came alone after the ones
  // before it: new trials only counted here, made below for all at once.
  std::vector<int> fresh_counts(batch.size(), 0);
  int fresh_total = 0;
  for (size_t i = 0; i < batch.size(); ++i) {
    SuggestRequest& request = *batch[i];
    SuggestResult& result = request.result;
    // A client that comes back (after a crash, say) gets its unfinished trials first.
    if (!request.client_id.empty()) {
      for (const v1::Trial& trial : trials) {
        if (static_cast<int>(result.trials.size()) == request.count) break;
        if (IsRunning(trial.state()) && trial.client_id() == request.client_id) {
          result.trials.push_back(trial);
        }
      }
      if (static_cast<int>(result.trials.size()) == request.count) continue;
    }

    int room = request.count - static_cast<int>(result.trials.size());
    if (spec.max_parallel_trials() > 0 && spec.max_parallel_trials() - running < room) {
      room = std::max(0, spec.max_parallel_trials() - running);
      result.reason = absl::StrFormat("%d of max_parallel_trials=%d trials are running", running,
                                      spec.max_parallel_trials());
    }

    // Trials users created with their own parameters go out before new ones.
    for (v1::Trial& trial : trials) {
      if (room == 0) break;
      if (trial.state() != v1::Trial::REQUESTED) continue;
      absl::StatusOr<v1::Trial> assigned =
          storage_.UpdateTrial(name, trial.id(), [&](v1::Trial& stored) -> absl::Status {
            if (stored.state() != v1::Trial::REQUESTED) {
              return absl::AbortedError("trial was handed out concurrently");
            }
            stored.set_state(v1::Trial::ACTIVE);
            stored.set_client_id(request.client_id);
            *stored.mutable_start_time() = ToTimestamp(now);
            return absl::OkStatus();
          });
      if (!assigned.ok()) {
        request.status = assigned.status();
        break;
      }
      trial = *assigned;
      result.trials.push_back(*std::move(assigned));
      ++running;
      --room;
    }
    if (!request.status.ok()) continue;

    if (spec.max_trials() > 0 && total >= spec.max_trials() && room > 0) {
      room = 0;
      result.reason =
          absl::StrFormat("the study has all its max_trials=%d trials", spec.max_trials());
    } else if (spec.max_trials() > 0 && total + room > spec.max_trials()) {
      room = static_cast<int>(spec.max_trials() - total);
      result.reason =
          absl::StrFormat("the study reaches its max_trials=%d trials", spec.max_trials());
    }
    fresh_counts[i] = room;
    fresh_total += room;
    total += room;
    running += room;
  }
  if (fresh_total == 0) return;

  const auto fail_fresh = [&](const absl::Status& status) {
    for (size_t i = 0; i < batch.size(); ++i) {
      if (fresh_counts[i] > 0) batch[i]->status = status;
    }
  };
  absl::StatusOr<suggest::SearchSpace> space = suggest::SearchSpace::Create(spec.parameters());
  if (!space.ok()) return fail_fresh(space.status());
  absl::StatusOr<std::unique_ptr<suggest::Designer>> designer = designers_(spec);
  if (!designer.ok()) return fail_fresh(designer.status());
  // The settled trials' observations stay in the cache's history; the
  // recent ones are added for this call and taken out again below.
  suggest::DesignerHistory& history = *snapshot->settled_history;
  AddToHistory(*snapshot->unconverted, *space, spec, history);
  snapshot->unconverted->clear();
  const size_t settled_completed = history.completed.size();
  AddToHistory(trials, *space, spec, history);
  absl::Cleanup keep_only_settled = [&] {
    history.completed.resize(settled_completed);
    history.pending.clear();
  };
  // Seeded by the study's seed and how far it has come, so the same history
  // gives the same suggestions, across restarts too.
  std::seed_seq seeds{static_cast<uint32_t>(spec.seed()), static_cast<uint32_t>(spec.seed() >> 32),
                      static_cast<uint32_t>(snapshot->total())};
  std::mt19937_64 rng(seeds);
  absl::StatusOr<suggest::Suggestions> suggestions =
      (*designer)->Suggest(history, fresh_total, rng);
  if (!suggestions.ok()) {
    spdlog::error("study={} designer failed: {}", name, suggestions.status().ToString());
    return fail_fresh(suggestions.status());
  }
  if (!suggestions->fallback_reason.empty()) {
    spdlog::warn("study={} designer fell back: {}", name, suggestions->fallback_reason);
  }

  // The points go to the requests in order; owners[k] asked for fresh[k].
  std::vector<v1::Trial> fresh;
  std::vector<SuggestRequest*> owners;
  size_t point = 0;
  for (size_t i = 0; i < batch.size(); ++i) {
    for (int k = 0; k < fresh_counts[i]; ++k, ++point) {
      if (point == suggestions->points.size()) {
        if (!suggestions->shortfall_reason.empty()) {
          batch[i]->result.reason = suggestions->shortfall_reason;
        }
        break;
      }
      v1::Trial trial;
      trial.set_state(v1::Trial::ACTIVE);
      trial.set_client_id(batch[i]->client_id);
      *trial.mutable_start_time() = ToTimestamp(now);
      for (v1::ParameterValue& value : suggest::ActiveValues(suggestions->points[point])) {
        *trial.add_parameters() = std::move(value);
      }
      fresh.push_back(std::move(trial));
      owners.push_back(batch[i]);
    }
  }
  if (fresh.empty()) return;
  absl::StatusOr<std::vector<v1::Trial>> created = storage_.CreateTrials(name, fresh);
  if (!created.ok()) return fail_fresh(created.status());
  for (size_t k = 0; k < created->size(); ++k) {
    v1::Trial& trial = (*created)[k];
    spdlog::info("study={} trial={} suggested: {}", name, trial.id(),
                 suggest::FormatAssignment({trial.parameters().begin(), trial.parameters().end()}));
    owners[k]->result.trials.push_back(std::move(trial));
  }
}

absl::StatusOr<v1::Trial> StudyManager::CreateTrial(std::string_view study_name,
                                                    const v1::Trial& trial) {
  absl::StatusOr<v1::Study> study = storage_.GetStudy(study_name);
  if (!study.ok()) return study.status();
  absl::StatusOr<suggest::SearchSpace> space =
      suggest::SearchSpace::Create(study->spec().parameters());
  if (!space.ok()) return space.status();
  absl::StatusOr<suggest::ParameterAssignment> parameters = space->Canonicalize(trial.parameters());
  if (!parameters.ok()) return parameters.status();

  absl::MutexLock lock(&StudyLock(study_name));
  absl::StatusOr<std::unique_ptr<storage::StudyLock>> shared = storage_.LockStudy(study_name);
  if (!shared.ok()) return shared.status();
  absl::StatusOr<std::map<v1::Trial::State, int64_t>> counts = storage_.CountTrials(study_name);
  if (!counts.ok()) return counts.status();
  int64_t total = 0;
  for (const auto& [state, n] : *counts) total += n;
  if (study->spec().max_trials() > 0 && total >= study->spec().max_trials()) {
    return absl::FailedPreconditionError(
        absl::StrFormat("study \"%s\" already has its max_trials=%d trials", study_name,
                        study->spec().max_trials()));
  }
  v1::Trial requested;
  requested.set_state(v1::Trial::REQUESTED);
  for (v1::ParameterValue& value : suggest::ActiveValues(*parameters)) {
    *requested.add_parameters() = std::move(value);
  }
  absl::StatusOr<std::vector<v1::Trial>> created =
      storage_.CreateTrials(study_name, std::span<const v1::Trial>(&requested, 1));
  if (!created.ok()) return created.status();
  return created->front();
}

absl::StatusOr<std::vector<v1::Trial>> StudyManager::CopyFinishedTrials(
    std::string_view into_study, std::string_view from_study, std::string_view client_id) {
  VERNIER_ASSIGN_OR_RETURN(storage::Page<v1::Trial> history, storage_.ListTrials(from_study, {}));
  std::vector<v1::Trial> copies;
  for (const v1::Trial& trial : history.items) {
    if (trial.state() != v1::Trial::SUCCEEDED && trial.state() != v1::Trial::STOPPED_EARLY &&
        trial.state() != v1::Trial::INFEASIBLE) {
      continue;
    }
    v1::Trial copy = trial;
    copy.clear_id();
    copy.set_client_id(std::string(client_id));
    copies.push_back(std::move(copy));
  }
  absl::MutexLock lock(&StudyLock(into_study));
  VERNIER_ASSIGN_OR_RETURN(std::unique_ptr<storage::StudyLock> shared,
                           storage_.LockStudy(into_study));
  return storage_.CreateTrials(into_study, copies);
}

absl::Status StudyManager::SetMaxTrials(std::string_view study_name, int max_trials) {
  absl::MutexLock lock(&StudyLock(study_name));
  return storage_
      .UpdateStudy(study_name,
                   [&](v1::Study& study) {
                     study.mutable_spec()->set_max_trials(max_trials);
                     return absl::OkStatus();
                   })
      .status();
}

absl::StatusOr<v1::Trial> StudyManager::GetTrial(std::string_view study_name, int64_t trial_id,
                                                 bool include_measurements) {
  return storage_.GetTrial(study_name, trial_id, include_measurements);
}

absl::StatusOr<storage::Page<v1::Trial>> StudyManager::ListTrials(
    std::string_view study_name, const storage::TrialQuery& query) {
  return storage_.ListTrials(study_name, query);
}

absl::StatusOr<storage::Page<storage::SerializedTrial>> StudyManager::ListTrialBodies(
    std::string_view study_name, const storage::TrialQuery& query) {
  return storage_.ListTrialBodies(study_name, query);
}

absl::StatusOr<v1::Trial> StudyManager::AddMeasurements(
    std::string_view study_name, int64_t trial_id, std::span<const v1::Measurement> measurements) {
  for (const v1::Measurement& measurement : measurements) {
    VERNIER_RETURN_IF_ERROR(ValidateReportedMeasurement(study_name, trial_id, measurement));
  }
  return storage_.AddMeasurements(study_name, trial_id, measurements, kAcceptingMeasurements);
}

void StudyManager::AddMeasurementsAsync(std::string_view study_name, int64_t trial_id,
                                        std::span<const v1::Measurement> measurements,
                                        storage::Storage::MeasurementDone done) {
  for (const v1::Measurement& measurement : measurements) {
    if (absl::Status status = ValidateReportedMeasurement(study_name, trial_id, measurement);
        !status.ok()) {
      done(status);
      return;
    }
  }
  storage_.AddMeasurementsAsync(study_name, trial_id, measurements, kAcceptingMeasurements,
                                std::move(done));
}

absl::StatusOr<v1::Trial> StudyManager::CompleteTrial(
    std::string_view study_name, int64_t trial_id,
    std::optional<v1::Measurement> final_measurement, std::optional<v1::Study>* study_read) {
  if (study_read != nullptr) study_read->reset();
  const std::string where = TrialName(study_name, trial_id);
  if (final_measurement.has_value()) {
    VERNIER_RETURN_IF_ERROR(ValidateMeasurement(*final_measurement, where + " final measurement"));
  }
  std::string objective;
  // Only a study with max_trials can be completed by this trial's end; the
  // study read here spares the others (the load of ask/tell studies) a read.
  bool limited_study = false;
  const absl::Time now = clock_();
  absl::StatusOr<v1::Trial> completed = storage_.UpdateTrialInStudy(
      study_name, trial_id, [&](v1::Trial& trial, const v1::Study& study) -> absl::Status {
        objective = study.spec().metrics().empty() ? "" : study.spec().metrics(0).metric_id();
        limited_study = study.state() == v1::Study::ACTIVE && study.spec().max_trials() > 0;
        if (study_read != nullptr && !limited_study) *study_read = study;
        v1::Measurement final =
            final_measurement.has_value() ? *final_measurement : trial.latest_measurement();
        if (trial.state() == v1::Trial::SUCCEEDED || trial.state() == v1::Trial::STOPPED_EARLY) {
          if (MessageDifferencer::Equals(final, trial.final_measurement())) {
            return absl::OkStatus();  // A repeated completion with the same result.
          }
          return absl::FailedPreconditionError(
              absl::StrFormat("%s was already completed with another final measurement", where));
        }
        VERNIER_RETURN_IF_ERROR(RequireRunning(trial, "it can be completed"));
        if (!final_measurement.has_value() && !trial.has_latest_measurement()) {
          return absl::FailedPreconditionError(absl::StrFormat(
              "%s has no measurement; give a final measurement or mark it infeasible", where));
        }
        if (!objective.empty() && !MetricValue(final, objective).has_value()) {
          return absl::InvalidArgumentError(absl::StrFormat(
              "%s: the final measurement lacks the objective metric \"%s\"", where, objective));
        }
        trial.set_state(trial.state() == v1::Trial::STOPPING ? v1::Trial::STOPPED_EARLY
                                                             : v1::Trial::SUCCEEDED);
        *trial.mutable_final_measurement() = final;
        *trial.mutable_end_time() = ToTimestamp(now);
        return absl::OkStatus();
      });
  if (completed.ok()) {
    spdlog::info("study={} trial={} {} objective={}", study_name, trial_id,
                 v1::Trial::State_Name(completed->state()),
                 MetricValue(completed->final_measurement(), objective).value_or(NAN));
    if (limited_study) VERNIER_RETURN_IF_ERROR(CompleteStudyIfDone(study_name));
  }
  return completed;
}

absl::Status StudyManager::CompleteStudyIfDone(std::string_view study_name) {
  VERNIER_ASSIGN_OR_RETURN(const v1::Study study, storage_.GetStudy(study_name));
  const int64_t max_trials = study.spec().max_trials();
  if (study.state() != v1::Study::ACTIVE || max_trials <= 0) return absl::OkStatus();
  VERNIER_ASSIGN_OR_RETURN(const auto counts, storage_.CountTrials(study_name));
  int64_t ended = 0;
  for (const auto& [state, n] : counts) ended += HasEnded(state) ? n : 0;
  if (ended < max_trials) return absl::OkStatus();
  VERNIER_RETURN_IF_ERROR(storage_
                              .UpdateStudy(study_name,
                                           [](v1::Study& stored) {
                                             if (stored.state() == v1::Study::ACTIVE) {
                                               stored.set_state(v1::Study::COMPLETED);
                                             }
                                             return absl::OkStatus();
                                           })
                              .status());
  spdlog::info("study={} COMPLETED: its max_trials={} trials have ended", study_name, max_trials);
  return absl::OkStatus();
}

absl::StatusOr<v1::Trial> StudyManager::EndTrial(std::string_view study_name, int64_t trial_id,
                                                 v1::Trial::State state, std::string reason) {
  const absl::Time now = clock_();
  absl::StatusOr<v1::Trial> ended =
      storage_.UpdateTrial(study_name, trial_id, [&](v1::Trial& trial) -> absl::Status {
        if (trial.state() == state && trial.status_reason() == reason) return absl::OkStatus();
        if (!IsPending(trial.state())) {
          return absl::FailedPreconditionError(
              absl::StrFormat("%s already ended %s", TrialName(study_name, trial_id),
                              v1::Trial::State_Name(trial.state())));
        }
        trial.set_state(state);
        trial.set_status_reason(reason);
        *trial.mutable_end_time() = ToTimestamp(now);
        return absl::OkStatus();
      });
  if (ended.ok()) {
    spdlog::info("study={} trial={} {}: {}", study_name, trial_id, v1::Trial::State_Name(state),
                 reason);
    VERNIER_RETURN_IF_ERROR(CompleteStudyIfDone(study_name));
  }
  return ended;
}

absl::StatusOr<v1::Trial> StudyManager::MarkInfeasible(std::string_view study_name,
                                                       int64_t trial_id, std::string reason) {
  if (reason.empty()) reason = "marked infeasible";
  return EndTrial(study_name, trial_id, v1::Trial::INFEASIBLE, std::move(reason));
}

absl::StatusOr<v1::Trial> StudyManager::FailTrial(std::string_view study_name, int64_t trial_id,
                                                  std::string reason) {
  return EndTrial(study_name, trial_id, v1::Trial::FAILED, std::move(reason));
}

absl::StatusOr<v1::Trial> StudyManager::CancelTrial(std::string_view study_name, int64_t trial_id,
                                                    std::string reason) {
  return EndTrial(study_name, trial_id, v1::Trial::CANCELLED, std::move(reason));
}

absl::StatusOr<v1::Trial> StudyManager::StopTrial(std::string_view study_name, int64_t trial_id) {
  // A trial already stopping stays as it is, with its reason.
  absl::StatusOr<v1::Trial> trial =
      storage_.StopTrialIfActive(study_name, trial_id, "stop requested");
  if (trial.ok() && trial->state() != v1::Trial::STOPPING) {
    return absl::FailedPreconditionError(
        absl::StrFormat("%s is %s; only ACTIVE trials can be stopped",
                        TrialName(study_name, trial_id), v1::Trial::State_Name(trial->state())));
  }
  return trial;
}

absl::StatusOr<v1::Study> StudyManager::SetStudyUserAttributes(
    std::string_view study_name, const google::protobuf::Map<std::string, std::string>& set,
    const google::protobuf::RepeatedPtrField<std::string>& remove) {
  return storage_.UpdateStudy(study_name, [&](v1::Study& study) {
    return ApplyUserAttributes(set, remove, absl::StrFormat("study \"%s\"", study_name),
                               *study.mutable_user_attributes());
  });
}

absl::StatusOr<v1::Trial> StudyManager::SetTrialUserAttributes(
    std::string_view study_name, int64_t trial_id,
    const google::protobuf::Map<std::string, std::string>& set,
    const google::protobuf::RepeatedPtrField<std::string>& remove) {
  return storage_.UpdateTrial(study_name, trial_id, [&](v1::Trial& trial) {
    return ApplyUserAttributes(set, remove, TrialName(study_name, trial_id),
                               *trial.mutable_user_attributes());
  });
}

namespace {

// The decision for a trial that is no longer running, or none (nullopt).
std::optional<EarlyStoppingDecision> DecisionByState(v1::Trial::State state,
                                                     const std::string& status_reason) {
  if (state == v1::Trial::STOPPING) {
    return EarlyStoppingDecision{.should_stop = true, .reason = status_reason};
  }
  if (!IsRunning(state)) {
    return EarlyStoppingDecision{
        .should_stop = true, .reason = absl::StrCat("the trial is ", v1::Trial::State_Name(state))};
  }
  return std::nullopt;
}

}  // namespace

absl::StatusOr<EarlyStoppingDecision> StudyManager::CheckEarlyStopping(std::string_view study_name,
                                                                       int64_t trial_id) {
  absl::StatusOr<v1::Study> study = storage_.GetStudy(study_name);
  if (!study.ok()) return study.status();
  absl::StatusOr<std::unique_ptr<suggest::EarlyStoppingPolicy>> policy =
      suggest::MakeEarlyStoppingPolicy(study->spec(), &fits_);
  if (!policy.ok()) return policy.status();
  // The trial as stored decides: stop if it is stopping or has ended.
  auto by_stored_state = [&]() -> absl::StatusOr<EarlyStoppingDecision> {
    absl::StatusOr<v1::Trial> trial = storage_.GetTrial(study_name, trial_id, false);
    if (!trial.ok()) return trial.status();
    return DecisionByState(trial->state(), trial->status_reason())
        .value_or(EarlyStoppingDecision{});
  };
  if (*policy == nullptr) return by_stored_state();
  // The trial's state and the study's curves in place (no copy), ordered by
  // trial id, read together.
  std::optional<EarlyStoppingDecision> decided;
  bool found = false;
  suggest::StoppingDecision verdict;
  absl::Status read = curves_.Read(
      *study, trial_id,
      [&](const ObjectiveCurveCache::TrialStatus* trial,
          std::span<const suggest::LearningCurve> curves) {
        if (trial == nullptr) return;
        found = true;
        decided = DecisionByState(trial->state, trial->status_reason);
        if (decided.has_value()) return;
        auto mine = std::lower_bound(
            curves.begin(), curves.end(), trial_id,
            [](const suggest::LearningCurve& c, int64_t id) { return c.trial_id < id; });
        if (mine == curves.end() || mine->trial_id != trial_id) return;
        verdict = (*policy)->Decide(*mine, curves);
      });
  if (!read.ok()) return read;
  if (!found) {
    // Not in the study when its trials were read: the store says why (or
    // it came since, and has reported nothing to decide on).
    return by_stored_state();
  }
  if (decided.has_value()) return *decided;
  if (!verdict.should_stop) return EarlyStoppingDecision{};

  // Another report may have decided first; its reason is kept.
  absl::StatusOr<v1::Trial> stopping =
      storage_.StopTrialIfActive(study_name, trial_id, verdict.reason);
  if (!stopping.ok()) return stopping.status();
  if (stopping->status_reason() == verdict.reason) {
    spdlog::info("study={} trial={} stopping early: {}", study_name, trial_id, verdict.reason);
  }
  return EarlyStoppingDecision{.should_stop = true, .reason = stopping->status_reason()};
}

absl::StatusOr<std::vector<v1::Trial>> StudyManager::ListOptimalTrials(std::string_view study_name,
                                                                       int top) {
  if (top < 0) return absl::InvalidArgumentError("top must not be negative");
  absl::StatusOr<v1::Study> study = storage_.GetStudy(study_name);
  if (!study.ok()) return study.status();
  // One metric: the store's leaderboard index; a Pareto front, or outcome
  // constraints, need every ended trial.
  if (study->spec().metrics_size() == 1) return storage_.ListBestTrials(study_name, top);
  storage::TrialQuery ended;
  ended.states = {v1::Trial::SUCCEEDED, v1::Trial::STOPPED_EARLY};
  absl::StatusOr<storage::Page<v1::Trial>> trials = storage_.ListTrials(study_name, ended);
  if (!trials.ok()) return trials.status();
  return RankTrials(trials->items, study->spec(), top);
}

}  // namespace vernier::tuner
