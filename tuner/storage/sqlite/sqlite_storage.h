#ifndef VERNIER_TUNER_STORAGE_SQLITE_SQLITE_STORAGE_H_
#define VERNIER_TUNER_STORAGE_SQLITE_SQLITE_STORAGE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "tuner/storage/measurement_group_commit.h"
#include "tuner/storage/sqlite/sqlite_connection.h"
#include "tuner/storage/sqlite/sqlite_connection_pool.h"
#include "tuner/storage/storage.h"
#include "tuner/storage/ticket_lock.h"

namespace vernier::storage {

struct SqliteStorageOptions {
  // Connections opened at most; each serves one transaction at a time.
  int max_connections = 8;
  // How long a writer waits for another writer's lock before failing.
  absl::Duration busy_timeout = absl::Seconds(10);
  // How long LockStudy waits for another holder (a suggestion in progress).
  absl::Duration study_lock_timeout = absl::Seconds(60);
  // Measurements with a sequence number that AddMeasurements calls bring in
  // at once go out together in one write transaction and one sync (group
  // commit), up to this many; 1 writes each alone.
  int max_measurements_per_commit = 256;
};

// The embedded store: one SQLite file in WAL mode, every commit synced
// (synchronous=FULL), so an OK survives the process being killed right after.
// Reads run concurrently on pooled connections; writes take SQLite's write
// lock with BEGIN IMMEDIATE and are retried while it is busy.
//
// Where storage.h leaves a choice: an empty mutator or check does nothing;
// CreateJob fills an empty job.study_name with the study's name and refuses a
// different one; ListJobsInStates lists oldest first, every job when `states`
// is empty; negative page sizes are INVALID_ARGUMENT; create times are stored
// as given.
class SqliteStorage : public Storage {
 public:
  // Creates `path`'s parent directories and the database, or migrates an
  // existing one. FAILED_PRECONDITION naming the path and SQLite's message
  // when the file cannot be opened or its schema is newer than this binary.
  static absl::StatusOr<std::unique_ptr<SqliteStorage>> Open(const std::string& path);
  static absl::StatusOr<std::unique_ptr<SqliteStorage>> Open(const std::string& path,
                                                             const SqliteStorageOptions& options);

  absl::StatusOr<v1::Study> CreateStudy(const v1::Study& study) override;
  absl::StatusOr<v1::Study> GetStudy(std::string_view study_name) override;
  absl::StatusOr<Page<v1::Study>> ListStudies(int page_size, std::string_view page_token) override;
  absl::StatusOr<v1::Study> UpdateStudy(std::string_view study_name,
                                        const StudyMutator& mutate) override;
  absl::Status DeleteStudy(std::string_view study_name) override;

  absl::StatusOr<std::vector<v1::Trial>> CreateTrials(std::string_view study_name,
                                                      std::span<const v1::Trial> trials) override;
  absl::StatusOr<v1::Trial> GetTrial(std::string_view study_name, int64_t trial_id,
                                     bool include_measurements) override;
  absl::StatusOr<Page<v1::Trial>> ListTrials(std::string_view study_name,
                                             const TrialQuery& query) override;
  absl::StatusOr<Page<SerializedTrial>> ListTrialBodies(std::string_view study_name,
                                                        const TrialQuery& query) override;
  absl::StatusOr<TrialChanges> ListTrialChanges(std::string_view study_name,
                                                std::string_view since) override;
  absl::StatusOr<std::vector<v1::Trial>> ListBestTrials(std::string_view study_name,
                                                        int limit) override;
  absl::StatusOr<std::map<v1::Trial::State, int64_t>> CountTrials(
      std::string_view study_name) override;
  absl::StatusOr<v1::Trial> UpdateTrialInStudy(std::string_view study_name, int64_t trial_id,
                                               const TrialInStudyMutator& mutate) override;
  absl::StatusOr<v1::Trial> AddMeasurements(
      std::string_view study_name, int64_t trial_id, std::span<const v1::Measurement> measurements,
      std::span<const v1::Trial::State> accepting_states) override;
  // One measurement with a sequence number joins the next group commit and
  // `done` runs on the group commit's thread.
  void AddMeasurementsAsync(std::string_view study_name, int64_t trial_id,
                            std::span<const v1::Measurement> measurements,
                            std::span<const v1::Trial::State> accepting_states,
                            MeasurementDone done) override;

  absl::StatusOr<v1::Job> CreateJob(const v1::Job& job, const v1::Study& study) override;
  absl::StatusOr<v1::Job> GetJob(std::string_view job_id) override;
  absl::StatusOr<Page<v1::Job>> ListJobs(int page_size, std::string_view page_token) override;
  absl::StatusOr<std::vector<v1::Job>> ListJobsInStates(
      std::span<const v1::Job::State> states) override;
  absl::StatusOr<v1::Job> UpdateJob(std::string_view job_id, const JobMutator& mutate) override;
  absl::StatusOr<v1::Job> DeleteJob(std::string_view job_id) override;

  absl::Status PutTrialRun(std::string_view job_id, const v1::TrialRun& run) override;
  absl::StatusOr<std::vector<v1::TrialRun>> ListTrialRuns(std::string_view job_id) override;
  absl::StatusOr<std::vector<v1::TrialRun>> ListTrialRunsOf(
      std::string_view job_id, std::span<const int64_t> trial_ids) override;

  absl::Status CreateApiToken(std::string_view token_hash, const v1::ApiToken& token) override;
  absl::StatusOr<v1::ApiToken> FindApiToken(std::string_view token_hash) override;
  absl::StatusOr<std::vector<v1::ApiToken>> ListApiTokens() override;
  absl::StatusOr<v1::ApiToken> UpdateApiToken(std::string_view token_id,
                                              const ApiTokenMutator& mutate) override;
  absl::Status DeleteApiToken(std::string_view token_id) override;

  absl::Status AppendAuditEntries(std::span<const v1::AuditEntry> entries) override;
  absl::StatusOr<std::vector<v1::AuditEntry>> ListAuditEntries(const AuditQuery& query) override;
  absl::StatusOr<std::vector<StoredAuditRow>> ReadAuditChain() override;

  // An OFD lock (fcntl F_OFD_SETLK) on one byte of the file PATH-study-locks,
  // chosen by the study name's hash: released when the process dies too.
  absl::StatusOr<std::unique_ptr<StudyLock>> LockStudy(std::string_view study_name) override;
  const StoreOutage& outage() const override { return outage_; }

  // Times by this machine's clock: one server drives a SQLite store.
  absl::StatusOr<std::vector<JobLease>> AcquireJobLeases(std::string_view holder,
                                                         std::span<const std::string> job_ids,
                                                         absl::Duration ttl) override;
  absl::Status ReleaseJobLeases(std::string_view holder,
                                std::span<const std::string> job_ids) override;
  absl::Status RecordServer(std::string_view server_id, std::string_view agent_address,
                            absl::Duration ttl) override;
  absl::StatusOr<std::vector<std::string>> ListLiveServerAddresses() override;
  absl::Status RecordAgentContact(std::string_view job_id, int64_t trial_id,
                                  std::string_view replica) override;
  absl::StatusOr<std::optional<absl::Duration>> AgentContactAge(std::string_view job_id,
                                                                int64_t trial_id,
                                                                std::string_view replica) override;
  absl::Status QueueReplicaExit(std::string_view job_id,
                                const v1::ReportExitRequest& report) override;
  absl::StatusOr<std::vector<v1::ReportExitRequest>> TakeReplicaExits(
      std::string_view job_id) override;

  const std::string& path() const { return path_; }
  // Connections open now; never more than options.max_connections.
  int open_connections() const { return pool_->open_connections(); }

 private:
  enum class TransactionKind { kRead, kWrite };
  using TransactionBody = std::function<absl::Status(SqliteConnection&)>;

  SqliteStorage(std::string path, const SqliteStorageOptions& options,
                std::unique_ptr<SqliteConnectionPool> pool);

  // Runs `body` in one transaction on a pooled connection and commits it, or
  // rolls it back and returns body's error unchanged. A transaction that met
  // a busy lock is run again from its start until the busy timeout passes, so
  // `body` must assign its results rather than accumulate them.
  absl::Status RunInTransaction(TransactionKind kind, const TransactionBody& body);

  // The job's trial runs, or only those of `trial_ids`, by trial id.
  absl::StatusOr<std::vector<v1::TrialRun>> ReadTrialRuns(
      std::string_view job_id, std::optional<std::span<const int64_t>> trial_ids);

  // AddMeasurements in a write transaction of its own.
  absl::StatusOr<v1::Trial> AppendInTransaction(std::string_view study_name, int64_t trial_id,
                                                std::span<const v1::Measurement> measurements,
                                                std::span<const v1::Trial::State> accepting_states);
  // Appends a group commit's batch in one write transaction, each append
  // inside a savepoint of its own, so that one refused (trial missing or not
  // running) or failed append takes back only its own writes. Returns each
  // append's result in order, as AddMeasurements would; if the transaction
  // itself fails, each append runs alone.
  std::vector<absl::StatusOr<v1::Trial>> AppendMeasurementBatch(
      std::span<const MeasurementAppend* const> batch);

  const std::string path_;
  const SqliteStorageOptions options_;
  std::unique_ptr<SqliteConnectionPool> pool_;
  StoreOutage outage_;
  // This process's write transactions take turns here, in arrival order,
  // before BEGIN IMMEDIATE: left to SQLite's busy retries (sleeps of 1 to
  // 50 ms), a writer could keep losing the lock to the group commit, which
  // takes it back batch after batch. Writers in other processes still meet
  // as busy retries.
  TicketLock writers_;
  MeasurementGroupCommit measurement_commits_;
};

}  // namespace vernier::storage

#endif  // VERNIER_TUNER_STORAGE_SQLITE_SQLITE_STORAGE_H_
