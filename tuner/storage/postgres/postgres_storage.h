#ifndef VERNIER_TUNER_STORAGE_POSTGRES_POSTGRES_STORAGE_H_
#define VERNIER_TUNER_STORAGE_POSTGRES_POSTGRES_STORAGE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "pqxx/transaction_base"
#include "tuner/storage/audit_chain.h"
#include "tuner/storage/measurement_group_commit.h"
#include "tuner/storage/postgres/postgres_connection_pool.h"
#include "tuner/storage/storage.h"

namespace vernier::storage {

struct PostgresStorageOptions {
  // Connections for transactions; each serves one at a time. 16 rather than
  // 8: more commits share each WAL flush (load_bench, docs/benchmarks.md).
  int max_connections = 16;
  // Connections that hold study locks (Storage::LockStudy), apart from the
  // transaction ones so that a lock holder always finds one for its writes.
  int max_lock_connections = 8;
  // Connections that read what changed in a study (ListTrialChanges, on
  // every early-stopping decision), set up to plan by index only.
  int max_change_lookup_connections = 4;
  // Measurements with a sequence number that AddMeasurements calls bring in
  // at once go out together in one statement and one commit (group commit),
  // up to this many, on one connection of their own; 1 writes each alone.
  int max_measurements_per_commit = 256;
  // How long LockStudy waits for another server's suggestion.
  absl::Duration study_lock_timeout = absl::Seconds(60);
  // How long a transaction is run again after a serialization failure, a
  // deadlock, or a lost connection (a server restart), and a caller waits for
  // a free connection.
  absl::Duration retry_timeout = absl::Seconds(10);
  // libpq's connect_timeout, unless the URL sets one.
  absl::Duration connect_timeout = absl::Seconds(10);
};

// The shared store: one PostgreSQL database that several `vernier serve`
// processes may use at once. Statements are prepared once per pooled
// connection. Writes run at READ COMMITTED and lock the rows they read and
// rewrite (FOR NO KEY UPDATE: the study row while trial ids are assigned,
// the trial row while it is measured), so concurrent writers to different
// trials never wait for each other; a trial update writes only if the row is
// still the version it read, and reads again if not. Reads that take several
// statements run in one REPEATABLE READ READ ONLY snapshot; one-statement
// reads run without a transaction block. A serialization
// failure, deadlock or lost connection runs the transaction again on a fresh
// connection until retry_timeout; a commit whose outcome is unknown is
// UNAVAILABLE. Every commit waits for the server's WAL flush, so OK means
// durable (with the server's fsync on).
//
// Where storage.h leaves a choice it behaves as the SQLite store does (see
// sqlite_storage.h).
class PostgresStorage : public Storage {
 public:
  // `url`: a libpq URI (postgresql://USER[:PASSWORD]@HOST:PORT/DATABASE[?...])
  // or key=value connection string. Connects once, migrates the schema (see
  // postgres_schema.h) and keeps that connection in the pool. UNAVAILABLE
  // when the server cannot be reached or refuses the login;
  // FAILED_PRECONDITION when the schema is newer than this binary. Messages
  // name the database without its password.
  static absl::StatusOr<std::unique_ptr<PostgresStorage>> Open(const std::string& url);
  static absl::StatusOr<std::unique_ptr<PostgresStorage>> Open(
      const std::string& url, const PostgresStorageOptions& options);

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
  // One autocommitted statement (stop_trial_if_active): the state's check,
  // the new state and the reason appended to the stored body.
  absl::StatusOr<v1::Trial> StopTrialIfActive(std::string_view study_name, int64_t trial_id,
                                              std::string_view reason) override;
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

  // A session-level advisory lock on a connection of its own (see
  // postgres_study_lock.h).
  absl::StatusOr<std::unique_ptr<StudyLock>> LockStudy(std::string_view study_name) override;
  const StoreOutage& outage() const override { return outage_; }

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

  // The database, for logs: the URL without its password.
  const std::string& description() const { return description_; }
  // Transaction connections open now; never more than max_connections.
  int open_connections() const { return pool_->open_connections(); }

 private:
  // kReadOne: a read that needs one statement (two only to name what is
  // missing), run without BEGIN and COMMIT; kRead: several statements in one
  // REPEATABLE READ READ ONLY snapshot; kWrite: READ COMMITTED; kWriteOne: a
  // write in one statement (two only to name what is missing), autocommitted.
  enum class TransactionKind { kReadOne, kRead, kWrite, kWriteOne };
  using TransactionBody = std::function<absl::Status(pqxx::transaction_base&)>;

  // The job's trial runs, or only those of `trial_ids`, by trial id.
  absl::StatusOr<std::vector<v1::TrialRun>> ReadTrialRuns(
      std::string_view job_id, std::optional<std::span<const int64_t>> trial_ids);

  PostgresStorage(std::string description, const PostgresStorageOptions& options,
                  std::unique_ptr<PostgresConnectionPool> pool,
                  std::unique_ptr<PostgresConnectionPool> lock_pool,
                  std::unique_ptr<PostgresConnectionPool> measurement_batch_pool,
                  std::unique_ptr<PostgresConnectionPool> change_lookup_pool);

  // Runs `body` in one transaction on a pooled connection and commits it, or
  // rolls it back and returns body's error unchanged. libpqxx errors become
  // statuses naming `doing`; retryable ones run `body` again from its start
  // until the retry timeout, so `body` must assign its results rather than
  // accumulate them.
  absl::Status RunInTransaction(TransactionKind kind, std::string_view doing,
                                const TransactionBody& body);
  // The same on a connection of `pool`.
  absl::Status RunInTransaction(PostgresConnectionPool& pool, TransactionKind kind,
                                std::string_view doing, const TransactionBody& body);
  absl::Status RunOnce(PostgresConnectionPool& pool, TransactionKind kind, std::string_view doing,
                       const TransactionBody& body);
  // A trial's write in one statement that holds only if the row is as the
  // statement expects: `attempt` runs as a kWriteOne transaction and sets
  // `held`; while it does not, it runs again, and once the trial has kept
  // changing for the retry timeout the write is ABORTED, naming `doing`.
  using TrialWriteAttempt = std::function<absl::Status(pqxx::transaction_base&, bool& held)>;
  absl::Status WriteTrialUntilItHolds(std::string_view doing, const TrialWriteAttempt& attempt);

  // CreateTrials of trials without a final measurement (so without a rank
  // key, and the study's spec is not needed) in one autocommitted
  // statement: their ids follow the largest id this server knows, and the
  // statement inserts them only if that is still the largest. Otherwise it
  // reads the largest and tries again, until the retry timeout.
  absl::StatusOr<std::vector<v1::Trial>> CreateTrialsAfter(std::string_view study_name,
                                                           std::span<const v1::Trial> trials);

  // Appends one measurement with a sequence number (so that running the
  // statement again is harmless) in one autocommitted statement; any other
  // append goes through AppendInTransaction.
  absl::StatusOr<v1::Trial> AppendMeasurement(const MeasurementAppend& append);
  // Appends the measurements in order in one transaction, one statement
  // each.
  absl::StatusOr<v1::Trial> AppendInTransaction(std::string_view study_name, int64_t trial_id,
                                                std::span<const v1::Measurement> measurements,
                                                std::span<const v1::Trial::State> accepting_states);
  // Appends a group commit's batch in one transaction: one statement for
  // each round of distinct trials. Returns each append's result in order, as
  // AppendMeasurement would; if the batch fails for a reason that is not
  // worth retrying, each append runs alone, so that one bad append fails no
  // other.
  std::vector<absl::StatusOr<v1::Trial>> AppendMeasurementBatch(
      std::span<const MeasurementAppend* const> batch);

  const std::string description_;
  const PostgresStorageOptions options_;
  std::unique_ptr<PostgresConnectionPool> pool_;
  std::unique_ptr<PostgresConnectionPool> lock_pool_;
  // The one connection that writes group-commit batches (one at a time), set
  // up to plan them as primary-key lookups; see PreparePostgresIndexLookupSession.
  std::unique_ptr<PostgresConnectionPool> measurement_batch_pool_;
  // The connections ListTrialChanges reads on, planning by index only.
  std::unique_ptr<PostgresConnectionPool> change_lookup_pool_;
  MeasurementGroupCommit measurement_commits_;
  StoreOutage outage_;
  // Each study's largest trial id as this server last wrote or read it,
  // which its next trials' ids follow when no other creator came between
  // (CreateTrialsAfter).
  absl::Mutex largest_trial_ids_mutex_;
  absl::flat_hash_map<std::string, int64_t> largest_trial_ids_
      ABSL_GUARDED_BY(largest_trial_ids_mutex_);
  // The newest audit row this server wrote or read, which its next append
  // chains after (none: read it first). Appends hold the mutex, so one
  // server's appends go out one at a time.
  absl::Mutex audit_mutex_;
  std::optional<StoredAuditRow> audit_head_ ABSL_GUARDED_BY(audit_mutex_);
};

}  // namespace vernier::storage

#endif  // VERNIER_TUNER_STORAGE_POSTGRES_POSTGRES_STORAGE_H_
