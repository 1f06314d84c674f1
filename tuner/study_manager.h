#ifndef VERNIER_TUNER_STUDY_MANAGER_H_
#define VERNIER_TUNER_STUDY_MANAGER_H_

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "suggest/designer.h"
#include "suggest/early_stopping/neighbour_fit_cache.h"
#include "tuner/clock.h"
#include "tuner/objective_curve_cache.h"
#include "tuner/settled_trial_cache.h"
#include "tuner/storage/storage.h"
#include "vernier/v1/study.pb.h"

namespace vernier::tuner {

struct SuggestResult {
  std::vector<v1::Trial> trials;
  // Why fewer trials than asked for came back; empty otherwise.
  std::string reason;
};

struct EarlyStoppingDecision {
  bool should_stop = false;
  std::string reason;
};

// The study state machine over a store: validates specs, hands out trials
// within max_trials / max_parallel_trials, records measurements and
// outcomes. Suggestions for one study are serialised by a per-study lock,
// and across servers sharing the store by the store's study lock
// (Storage::LockStudy); different studies never wait for each other. While a
// designer computes, only its study's locks are held: every other call, and
// other studies' suggestions, go on. SuggestTrials calls of one study that
// arrive while a suggestion is being made wait together and are then served
// in one pass (one designer call, one CreateTrials), in arrival order, with
// the same outcome as one after another (calls with the same client_id stay
// in separate passes).
class StudyManager {
 public:
  // Builds the designer for a study's spec; suggest::MakeDesigner in the
  // service, a fake in tests.
  using DesignerFactory =
      std::function<absl::StatusOr<std::unique_ptr<suggest::Designer>>(const v1::StudySpec&)>;

  StudyManager(storage::Storage& storage, Clock clock);
  StudyManager(storage::Storage& storage, Clock clock, DesignerFactory designers);

  // Idempotent on name: the same spec returns the stored study; another
  // spec is ALREADY_EXISTS.
  absl::StatusOr<v1::Study> CreateStudy(v1::Study study);
  absl::StatusOr<v1::Study> GetStudy(std::string_view study_name);
  absl::StatusOr<storage::Page<v1::Study>> ListStudies(int page_size, std::string_view page_token);
  absl::Status DeleteStudy(std::string_view study_name);
  // Drops what is kept in memory for a study the store no longer has (it
  // went with its job: JobController::DeleteJob).
  void ForgetStudy(std::string_view study_name);

  // `study`: the study as just read (CompleteTrial's `study_read`), which
  // spares reading it again; absent, it is read.
  absl::StatusOr<SuggestResult> SuggestTrials(std::string_view study_name, int count,
                                              std::string_view client_id,
                                              const v1::Study* study = nullptr);
  // A user-chosen point, stored REQUESTED until SuggestTrials hands it out.
  absl::StatusOr<v1::Trial> CreateTrial(std::string_view study_name, const v1::Trial& trial);
  // Copies of `from_study`'s finished trials (SUCCEEDED, STOPPED_EARLY,
  // INFEASIBLE), each with its measurements and outcome and with
  // `client_id`, stored as trials of `into_study` (a resumed job's history).
  // Returns the copies.
  absl::StatusOr<std::vector<v1::Trial>> CopyFinishedTrials(std::string_view into_study,
                                                            std::string_view from_study,
                                                            std::string_view client_id);
  // Sets the study's max_trials (a resumed job counts its copies on top).
  absl::Status SetMaxTrials(std::string_view study_name, int max_trials);
  absl::StatusOr<v1::Trial> GetTrial(std::string_view study_name, int64_t trial_id,
                                     bool include_measurements);
  absl::StatusOr<storage::Page<v1::Trial>> ListTrials(std::string_view study_name,
                                                      const storage::TrialQuery& query);
  // ListTrials with each trial serialized (storage::Storage::ListTrialBodies).
  absl::StatusOr<storage::Page<storage::SerializedTrial>> ListTrialBodies(
      std::string_view study_name, const storage::TrialQuery& query);
  absl::StatusOr<v1::Trial> AddMeasurements(std::string_view study_name, int64_t trial_id,
                                            std::span<const v1::Measurement> measurements);
  // AddMeasurements without blocking (see Storage::AddMeasurementsAsync):
  // `done` gets the result, at once on this thread when a measurement is
  // invalid (and then none is stored). The arguments must stay valid until
  // `done` has run.
  void AddMeasurementsAsync(std::string_view study_name, int64_t trial_id,
                            std::span<const v1::Measurement> measurements,
                            storage::Storage::MeasurementDone done);
  // `final_measurement` absent: the latest measurement becomes final.
  // Repeating a completion with the same result succeeds; with another
  // result it is FAILED_PRECONDITION.
  // `study_read`, if given, gets the study as the completion read it, when
  // the completion cannot have changed it (it may complete a study with
  // max_trials); otherwise it is left empty.
  absl::StatusOr<v1::Trial> CompleteTrial(std::string_view study_name, int64_t trial_id,
                                          std::optional<v1::Measurement> final_measurement,
                                          std::optional<v1::Study>* study_read = nullptr);
  absl::StatusOr<v1::Trial> MarkInfeasible(std::string_view study_name, int64_t trial_id,
                                           std::string reason);
  // For the job controller: the trial's program failed or was lost.
  absl::StatusOr<v1::Trial> FailTrial(std::string_view study_name, int64_t trial_id,
                                      std::string reason);
  // For the job controller: the trial's job was cancelled or failed (the
  // trial is CANCELLED, with its measurements kept).
  absl::StatusOr<v1::Trial> CancelTrial(std::string_view study_name, int64_t trial_id,
                                        std::string reason);
  absl::StatusOr<v1::Trial> StopTrial(std::string_view study_name, int64_t trial_id);
  // Sets `set` and removes `remove` from the study's (the trial's) user
  // attributes, all or nothing (ApplyUserAttributes says what is refused).
  absl::StatusOr<v1::Study> SetStudyUserAttributes(
      std::string_view study_name, const google::protobuf::Map<std::string, std::string>& set,
      const google::protobuf::RepeatedPtrField<std::string>& remove);
  absl::StatusOr<v1::Trial> SetTrialUserAttributes(
      std::string_view study_name, int64_t trial_id,
      const google::protobuf::Map<std::string, std::string>& set,
      const google::protobuf::RepeatedPtrField<std::string>& remove);
  // Whether the trial should stop: yes once it is STOPPING or has ended;
  // for an ACTIVE trial of a study with early stopping on, the study's policy
  // decides from the objective curves, and a trial it stops goes STOPPING
  // (ending STOPPED_EARLY when its program exits or it completes).
  absl::StatusOr<EarlyStoppingDecision> CheckEarlyStopping(std::string_view study_name,
                                                           int64_t trial_id);
  // Best first; the Pareto front with several metrics.
  absl::StatusOr<std::vector<v1::Trial>> ListOptimalTrials(std::string_view study_name, int top);
  // SuggestTrials calls of the study waiting for the next pass (not the
  // ones being served): for tests.
  int WaitingSuggestions(std::string_view study_name);

 private:
  // One SuggestTrials call waiting for its study's next pass.
  struct SuggestRequest {
    int count = 0;
    std::string client_id;
    SuggestResult result;
    absl::Status status;
    bool done = false;
  };
  // A study's waiting SuggestTrials calls; the first to find no pass running
  // serves the waiting ones, itself among them.
  struct SuggestQueue {
    absl::Mutex mutex;
    absl::CondVar served;
    std::deque<SuggestRequest*> waiting ABSL_GUARDED_BY(mutex);
    bool serving ABSL_GUARDED_BY(mutex) = false;
  };

  // What the server keeps per study: its lock and its waiting suggestions.
  struct StudyState {
    absl::Mutex lock;
    SuggestQueue suggestions;
  };

  StudyState& State(std::string_view study_name);
  absl::Mutex& StudyLock(std::string_view study_name) { return State(study_name).lock; }
  void ServeSuggestions(const v1::Study& study, std::span<SuggestRequest* const> batch);
  void SuggestLocked(const v1::Study& study, std::span<SuggestRequest* const> batch);
  absl::StatusOr<v1::Trial> EndTrial(std::string_view study_name, int64_t trial_id,
                                     v1::Trial::State state, std::string reason);
  // After a trial ended: a study with max_trials whose trials have all ended
  // becomes COMPLETED (it would suggest nothing more).
  absl::Status CompleteStudyIfDone(std::string_view study_name);

  storage::Storage& storage_;
  Clock clock_;
  DesignerFactory designers_;
  ObjectiveCurveCache curves_;
  // The learning-curve policy's fits of finished curves, between reports.
  suggest::NeighbourFitCache fits_;
  SettledTrialCache settled_trials_;
  absl::Mutex locks_mutex_;
  std::map<std::string, std::unique_ptr<StudyState>, std::less<>> studies_
      ABSL_GUARDED_BY(locks_mutex_);
};

// Letters, digits, '_' and '-', starting with a letter, at most 128.
absl::Status ValidateStudyName(std::string_view study_name);
// Every metric value finite and named.
absl::Status ValidateMeasurement(const v1::Measurement& measurement, std::string_view where);

}  // namespace vernier::tuner

#endif  // VERNIER_TUNER_STUDY_MANAGER_H_
