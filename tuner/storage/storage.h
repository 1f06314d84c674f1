#ifndef VERNIER_TUNER_STORAGE_STORAGE_H_
#define VERNIER_TUNER_STORAGE_STORAGE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tuner/storage/api_token_store.h"
#include "tuner/storage/audit_log_store.h"
#include "tuner/storage/job_coordination.h"
#include "tuner/storage/store_outage.h"
#include "tuner/storage/study_lock.h"
#include "vernier/v1/job.pb.h"
#include "vernier/v1/study.pb.h"

namespace vernier::storage {

template <typename T>
struct Page {
  std::vector<T> items;
  // Empty on the last page.
  std::string next_page_token;
};

// One trial as the store keeps it: its id and its serialized v1::Trial, for
// answers that pass trials on without reading them (ListTrialBodies).
struct SerializedTrial {
  int64_t id = 0;
  std::string bytes;
};

// The trials of a study written since an earlier listing (ListTrialChanges).
struct TrialChanges {
  // Where this listing stands: given back as `since`, the next listing
  // holds every trial written after this one.
  std::string horizon;
  // Each trial written since `since` (and perhaps others), once, ordered by
  // id, serialized as ListTrialBodies gives them (framing checked).
  std::vector<SerializedTrial> trials;
};

struct TrialQuery {
  // Empty: every state.
  std::vector<v1::Trial::State> states;
  // 0: no limit.
  int page_size = 0;
  std::string page_token;
  bool include_measurements = false;
};

// Applied inside the store's transaction; a non-OK status aborts it and is
// returned unchanged, so the stored row is never half-updated.
using TrialMutator = std::function<absl::Status(v1::Trial&)>;
// A trial mutator that also sees the trial's study, read with the trial.
using TrialInStudyMutator = std::function<absl::Status(v1::Trial&, const v1::Study&)>;
using JobMutator = std::function<absl::Status(v1::Job&)>;
using StudyMutator = std::function<absl::Status(v1::Study&)>;

// Durable state of studies, trials, measurements and jobs. Every method is
// one transaction, committed durably before it returns OK, and safe to call
// from many threads at once. Errors: NOT_FOUND for a missing study, trial or
// job; ALREADY_EXISTS for a duplicate name; INVALID_ARGUMENT for a bad page
// token; UNAVAILABLE when a database server cannot be reached or a commit's
// outcome is unknown (retry); INTERNAL for another store failure (with the
// store's message). Failures of the store itself that pass once it is back
// are marked transient (IsTransientStoreError). Several processes may share
// one store; they share the work of running jobs through the JobCoordination
// methods. API tokens are kept through the ApiTokenStore methods, the audit
// log through the AuditLogStore ones.
class Storage : public JobCoordination, public ApiTokenStore, public AuditLogStore {
 public:
  virtual ~Storage() = default;

  // ALREADY_EXISTS also for the study name of any job, even once that
  // study is deleted: a job's study name is never reused.
  virtual absl::StatusOr<v1::Study> CreateStudy(const v1::Study& study) = 0;
  virtual absl::StatusOr<v1::Study> GetStudy(std::string_view study_name) = 0;
  // Ordered by name.
  virtual absl::StatusOr<Page<v1::Study>> ListStudies(int page_size,
                                                      std::string_view page_token) = 0;
  virtual absl::StatusOr<v1::Study> UpdateStudy(std::string_view study_name,
                                                const StudyMutator& mutate) = 0;
  // Removes the study with its trials and their measurements;
  // FAILED_PRECONDITION naming the job while a job that has not ended runs
  // it (checked in the same transaction).
  virtual absl::Status DeleteStudy(std::string_view study_name) = 0;

  // Stores `trials` with ids following the study's largest id, in order,
  // all or none. Measurements inside them are ignored.
  virtual absl::StatusOr<std::vector<v1::Trial>> CreateTrials(
      std::string_view study_name, std::span<const v1::Trial> trials) = 0;
  // Without measurements unless asked; latest_measurement and
  // measurement_count are always set.
  virtual absl::StatusOr<v1::Trial> GetTrial(std::string_view study_name, int64_t trial_id,
                                             bool include_measurements) = 0;
  // Ordered by id.
  virtual absl::StatusOr<Page<v1::Trial>> ListTrials(std::string_view study_name,
                                                     const TrialQuery& query) = 0;
  // ListTrials' page with each trial serialized, bytes that parse as what
  // ListTrials gives; a store that keeps them so hands them over unparsed
  // (only their framing is checked), so a large listing costs no parse and
  // serialization of every trial.
  virtual absl::StatusOr<Page<SerializedTrial>> ListTrialBodies(std::string_view study_name,
                                                                const TrialQuery& query) = 0;
  // The study's trials written (created, updated, measured) since the
  // listing whose horizon is `since`, in one read, so that a reader that
  // keeps what it read (ObjectiveCurveCache) is brought up to date without
  // receiving every trial. `since` empty: every trial. A store may list
  // trials that did not change (PostgreSQL's horizon is the oldest
  // transaction then running), never leave out one that did. NOT_FOUND for
  // a missing study; INVALID_ARGUMENT for a `since` that is no horizon of
  // this store's.
  virtual absl::StatusOr<TrialChanges> ListTrialChanges(std::string_view study_name,
                                                        std::string_view since) = 0;
  // The leaderboard of a study with one objective, from an index: its
  // SUCCEEDED and STOPPED_EARLY trials whose final measurement holds the
  // study's first metric, best first under that metric's goal (MINIMIZE, or
  // else maximize), ties by id; at most `limit` (0: all). Without
  // measurements.
  virtual absl::StatusOr<std::vector<v1::Trial>> ListBestTrials(std::string_view study_name,
                                                                int limit) = 0;
  // Number of trials per state, zero counts omitted.
  virtual absl::StatusOr<std::map<v1::Trial::State, int64_t>> CountTrials(
      std::string_view study_name) = 0;
  // Reads the trial, applies `mutate`, writes it back. `id`, `study_name`,
  // measurements, latest_measurement and measurement_count are the store's:
  // changes to them are ignored.
  absl::StatusOr<v1::Trial> UpdateTrial(std::string_view study_name, int64_t trial_id,
                                        const TrialMutator& mutate) {
    return UpdateTrialInStudy(study_name, trial_id,
                              [&](v1::Trial& trial, const v1::Study&) -> absl::Status {
                                return mutate ? mutate(trial) : absl::OkStatus();
                              });
  }
  // UpdateTrial for a mutator that needs the study too (the objective
  // metric, say): the store reads both at once.
  virtual absl::StatusOr<v1::Trial> UpdateTrialInStudy(std::string_view study_name,
                                                       int64_t trial_id,
                                                       const TrialInStudyMutator& mutate) = 0;
  // Moves an ACTIVE trial to STOPPING with `reason` as its status_reason
  // (an early-stopping decision); a trial in any other state is left as it
  // is. Returns the trial as stored after the call, without measurements.
  // NOT_FOUND for a missing trial or study. A store whose round trips cost
  // (a database server) does it in one statement that checks the state;
  // this is UpdateTrial's read and conditional write.
  virtual absl::StatusOr<v1::Trial> StopTrialIfActive(std::string_view study_name, int64_t trial_id,
                                                      std::string_view reason) {
    return UpdateTrial(study_name, trial_id, [&](v1::Trial& trial) -> absl::Status {
      if (trial.state() != v1::Trial::ACTIVE) return absl::OkStatus();
      trial.set_state(v1::Trial::STOPPING);
      trial.set_status_reason(std::string(reason));
      return absl::OkStatus();
    });
  }
  // Appends the measurements in order if the trial is in one of
  // `accepting_states` (empty: any state), else FAILED_PRECONDITION naming
  // the trial, its state and the accepted ones, storing nothing. One whose
  // sequence_number (> 0) is already stored for the trial is skipped, so
  // retries store nothing twice. Returns the trial after the append (without
  // measurements). The state is checked by the statement that appends, so a
  // single measurement costs one round trip to a database server.
  virtual absl::StatusOr<v1::Trial> AddMeasurements(
      std::string_view study_name, int64_t trial_id, std::span<const v1::Measurement> measurements,
      std::span<const v1::Trial::State> accepting_states) = 0;
  // AddMeasurements for a caller that must not block (a gRPC callback
  // handler): returns at once, and `done` receives the result once the
  // measurements are stored (or refused), on one of the store's threads
  // (MeasurementGroupCommit::SubmitOrAdd). The arguments must stay valid
  // until `done` has run.
  using MeasurementDone = std::function<void(absl::StatusOr<v1::Trial>)>;
  virtual void AddMeasurementsAsync(std::string_view study_name, int64_t trial_id,
                                    std::span<const v1::Measurement> measurements,
                                    std::span<const v1::Trial::State> accepting_states,
                                    MeasurementDone done) = 0;

  // Stores the job and its study together, or neither. ALREADY_EXISTS when
  // the job id (or the study name) is taken.
  virtual absl::StatusOr<v1::Job> CreateJob(const v1::Job& job, const v1::Study& study) = 0;
  virtual absl::StatusOr<v1::Job> GetJob(std::string_view job_id) = 0;
  // Newest first.
  virtual absl::StatusOr<Page<v1::Job>> ListJobs(int page_size, std::string_view page_token) = 0;
  virtual absl::StatusOr<std::vector<v1::Job>> ListJobsInStates(
      std::span<const v1::Job::State> states) = 0;
  virtual absl::StatusOr<v1::Job> UpdateJob(std::string_view job_id, const JobMutator& mutate) = 0;
  // Removes an ended job with its study (trials, measurements), its trial
  // runs and what job_coordination.h keeps for it, all or nothing, and
  // returns the job as it was. NOT_FOUND for an unknown job;
  // FAILED_PRECONDITION naming its state while it has not ended (checked in
  // the same transaction). The job id and study name are free again
  // afterwards: the job's replicas have ended and their credentials died
  // with their attempts.
  virtual absl::StatusOr<v1::Job> DeleteJob(std::string_view job_id) = 0;

  // Inserts or replaces the run of (job, trial_id).
  virtual absl::Status PutTrialRun(std::string_view job_id, const v1::TrialRun& run) = 0;
  // Ordered by trial id.
  virtual absl::StatusOr<std::vector<v1::TrialRun>> ListTrialRuns(std::string_view job_id) = 0;
  // The runs of these trials of the job only, ordered by trial id, without
  // reading the others; a trial without a run (or repeated) is not an
  // error. NOT_FOUND for a missing job.
  virtual absl::StatusOr<std::vector<v1::TrialRun>> ListTrialRunsOf(
      std::string_view job_id, std::span<const int64_t> trial_ids) = 0;

  // Waits until no one else, in this process or in another sharing the
  // store, holds `study_name`'s lock, and takes it until the returned object
  // goes. For decisions over several transactions that must not interleave
  // with another server's (which trials to hand out). Locks of different
  // studies are independent; a holder must not take a second one. Does not
  // check that the study exists. UNAVAILABLE naming the study when the lock
  // stays taken past the store's lock timeout.
  virtual absl::StatusOr<std::unique_ptr<StudyLock>> LockStudy(std::string_view study_name) = 0;

  // Whether the store is away now and since when, as its calls showed
  // (transient errors, transient_error.h); logged once at each outage's
  // start and end.
  virtual const StoreOutage& outage() const = 0;
};

}  // namespace vernier::storage

#endif  // VERNIER_TUNER_STORAGE_STORAGE_H_
