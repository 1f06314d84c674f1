#include "tuner/storage/postgres/postgres_storage.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <map>
#include <optional>
#include <tuple>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "common/status_macros.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/wire_format_lite.h"
#include "pqxx/binarystring"
#include "pqxx/connection"
#include "pqxx/nontransaction"
#include "pqxx/result"
#include "pqxx/transaction"
#include "spdlog/spdlog.h"
#include "text/absl_view.h"
#include "tuner/storage/page_token.h"
#include "tuner/storage/postgres/postgres_error.h"
#include "tuner/storage/postgres/postgres_schema.h"
#include "tuner/storage/postgres/postgres_statements.h"
#include "tuner/storage/postgres/postgres_study_lock.h"
#include "tuner/storage/postgres/postgres_url.h"
#include "tuner/storage/scoped_write_fence.h"
#include "tuner/storage/stored_rows.h"
#include "tuner/storage/transient_error.h"

namespace vernier::storage {
namespace {

using Transaction = pqxx::transaction_base;
using ReadOnlySnapshot =
    pqxx::transaction<pqxx::isolation_level::repeatable_read, pqxx::readwrite_policy::read_only>;

pqxx::binarystring Bytes(const google::protobuf::MessageLite& message) {
  return pqxx::binarystring(SerializeBody(message));
}

// Full precision; NaN, which the statements read as NULL, for none.
std::string RankKeyParameter(std::optional<double> rank_key) {
  if (!rank_key.has_value()) return "NaN";
  return absl::StrFormat("%.17g", *rank_key);
}

// A PostgreSQL array literal of the enum values, "{1,3}".
template <typename Enum>
std::string IntegerArray(std::span<const Enum> values) {
  return absl::StrCat("{",
                      absl::StrJoin(values, ",",
                                    [](std::string* out, Enum value) {
                                      absl::StrAppend(out, static_cast<int>(value));
                                    }),
                      "}");
}

// A PostgreSQL array literal of strings, every element quoted: {"a","b"}.
std::string TextArray(std::span<const std::string> values) {
  std::string literal = "{";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) literal += ',';
    literal += '"';
    for (char c : values[i]) {
      if (c == '"' || c == '\\') literal += '\\';
      literal += c;
    }
    literal += '"';
  }
  return literal + "}";
}

// A PostgreSQL array literal of integers, {1,2}.
std::string BigintArray(std::span<const int64_t> values) {
  return absl::StrCat("{", absl::StrJoin(values, ","), "}");
}

// A PostgreSQL bytea[] literal of the messages, each in hex: {"\\x0a01"}.
std::string ByteaArray(std::span<const std::string> serialized) {
  std::string literal = "{";
  for (size_t i = 0; i < serialized.size(); ++i) {
    absl::StrAppend(&literal, i > 0 ? "," : "", "\"\\\\x", absl::BytesToHexString(serialized[i]),
                    "\"");
  }
  return literal + "}";
}

template <typename Message>
absl::StatusOr<Message> ParseField(const pqxx::field& field, absl::string_view what) {
  const pqxx::binarystring bytes(field);
  return ParseBody<Message>(
      std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), what);
}

// The first column of every row as `Message`, in the order given.
template <typename Message>
absl::StatusOr<std::vector<Message>> ParseBodies(const pqxx::result& rows, absl::string_view what) {
  std::vector<Message> messages;
  messages.reserve(rows.size());
  for (const pqxx::row& row : rows) {
    VERNIER_ASSIGN_OR_RETURN(Message message, ParseField<Message>(row[0], what));
    messages.push_back(std::move(message));
  }
  return messages;
}

// A trial from the first three columns of `row` (TRIAL_COLUMNS in
// postgres_statements.cc).
absl::StatusOr<v1::Trial> TrialRow(const pqxx::row& row, absl::string_view what) {
  VERNIER_ASSIGN_OR_RETURN(v1::Trial trial, ParseField<v1::Trial>(row[0], what));
  trial.set_measurement_count(row[1].as<int64_t>());
  if (row[2].is_null()) {
    trial.clear_latest_measurement();
  } else {
    VERNIER_ASSIGN_OR_RETURN(*trial.mutable_latest_measurement(),
                             ParseField<v1::Measurement>(row[2], what));
  }
  return trial;
}

absl::StatusOr<std::vector<v1::Trial>> TrialRows(const pqxx::result& rows, absl::string_view what) {
  std::vector<v1::Trial> trials;
  trials.reserve(rows.size());
  for (const pqxx::row& row : rows) {
    VERNIER_ASSIGN_OR_RETURN(v1::Trial trial, TrialRow(row, what));
    trials.push_back(std::move(trial));
  }
  return trials;
}

std::string StudyWhat(std::string_view study_name) {
  return absl::StrCat("study \"", text::AbslView(study_name), "\"");
}

std::string JobWhat(std::string_view job_id) {
  return absl::StrCat("job \"", text::AbslView(job_id), "\"");
}

absl::StatusOr<v1::Study> ReadStudy(Transaction& transaction, std::string_view study_name,
                                    bool for_update) {
  const pqxx::result rows = transaction.exec_prepared(
      for_update ? "get_study_for_update" : "get_study", std::string(study_name));
  if (rows.empty()) return StudyNotFound(study_name);
  return ParseField<v1::Study>(rows[0][0], StudyWhat(study_name));
}

absl::Status RequireStudy(Transaction& transaction, std::string_view study_name) {
  if (transaction.exec_prepared("study_exists", std::string(study_name)).empty()) {
    return StudyNotFound(study_name);
  }
  return absl::OkStatus();
}

// NOT_FOUND for a trial no row was found for, naming the study if it is
// the study that is missing.
absl::Status MissingTrial(Transaction& transaction, std::string_view study_name, int64_t trial_id) {
  VERNIER_RETURN_IF_ERROR(RequireStudy(transaction, study_name));
  return TrialNotFound(study_name, trial_id);
}

// What appending `measurement` did, from a row of append_measurement or
// append_measurements: the trial as TRIAL_COLUMNS, its state, and its new
// count (NULL if the measurement was not appended).
absl::StatusOr<v1::Trial> AppendOutcome(const pqxx::row& row, std::string_view study_name,
                                        int64_t trial_id, const v1::Measurement& measurement,
                                        std::span<const v1::Trial::State> accepting_states) {
  const auto state = static_cast<v1::Trial::State>(row[3].as<int>());
  if (!AcceptsMeasurements(state, accepting_states)) {
    return NotAcceptingMeasurements(study_name, trial_id, state, accepting_states);
  }
  VERNIER_ASSIGN_OR_RETURN(v1::Trial trial, TrialRow(row, DescribeTrial(study_name, trial_id)));
  // A sequence number already stored changes nothing.
  if (!row[4].is_null()) {
    trial.set_measurement_count(row[4].as<int64_t>());
    *trial.mutable_latest_measurement() = measurement;
  }
  return trial;
}

absl::StatusOr<v1::Trial> ReadTrial(Transaction& transaction, std::string_view study_name,
                                    int64_t trial_id) {
  const pqxx::result rows =
      transaction.exec_prepared("get_trial", std::string(study_name), trial_id);
  if (rows.empty()) return MissingTrial(transaction, study_name, trial_id);
  return TrialRow(rows[0], DescribeTrial(study_name, trial_id));
}

// Fills the measurements of `trials` (all of one study) with one query.
absl::Status ReadMeasurements(Transaction& transaction, std::string_view study_name,
                              std::span<v1::Trial> trials) {
  if (trials.empty()) return absl::OkStatus();
  std::vector<int64_t> ids;
  for (v1::Trial& trial : trials) {
    trial.clear_measurements();
    ids.push_back(trial.id());
  }
  const pqxx::result rows =
      transaction.exec_prepared("list_measurements", std::string(study_name),
                                absl::StrCat("{", absl::StrJoin(ids, ","), "}"));
  // Both in id order: walk them together.
  auto trial = trials.begin();
  for (const pqxx::row& row : rows) {
    const int64_t trial_id = row[0].as<int64_t>();
    while (trial != trials.end() && trial->id() < trial_id) ++trial;
    if (trial == trials.end() || trial->id() != trial_id) {
      return absl::InternalError(absl::StrCat(
          "measurements of ", DescribeTrial(study_name, trial_id), " came back out of order"));
    }
    VERNIER_ASSIGN_OR_RETURN(
        *trial->add_measurements(),
        ParseField<v1::Measurement>(
            row[1], absl::StrCat("measurement of ", DescribeTrial(study_name, trial_id))));
  }
  return absl::OkStatus();
}

// A trial's body as stored: its measurement count and latest measurement
// stay in their columns, which only appends write.
std::string TrialBody(const v1::Trial& trial) {
  v1::Trial body = trial;
  body.clear_measurement_count();
  body.clear_latest_measurement();
  return SerializeBody(body);
}

// New rows of `study_name` for `trials`, with ids from `first_id` on, and
// the array parameters of insert_trials (and insert_trials_after) for
// them; rank keys from `spec`, or none without one.
struct TrialsToInsert {
  std::vector<v1::Trial> rows;
  std::string ids, states, client_ids, rank_keys, bodies;
};
TrialsToInsert NewTrialRows(std::span<const v1::Trial> trials, std::string_view study_name,
                            int64_t first_id, const v1::StudySpec* spec) {
  TrialsToInsert insert;
  std::vector<int64_t> ids;
  std::vector<int> states;
  std::vector<std::string> client_ids, rank_keys, bodies;
  for (const v1::Trial& requested : trials) {
    v1::Trial trial =
        NewTrialRow(requested, study_name, first_id + static_cast<int64_t>(ids.size()));
    ids.push_back(trial.id());
    states.push_back(static_cast<int>(trial.state()));
    client_ids.push_back(trial.client_id());
    rank_keys.push_back(RankKeyParameter(spec != nullptr ? RankKey(trial, *spec) : std::nullopt));
    bodies.push_back(TrialBody(trial));
    insert.rows.push_back(std::move(trial));
  }
  insert.ids = BigintArray(ids);
  insert.states = IntegerArray(std::span<const int>(states));
  insert.client_ids = TextArray(client_ids);
  insert.rank_keys = TextArray(rank_keys);
  insert.bodies = ByteaArray(bodies);
  return insert;
}

absl::StatusOr<v1::Job> ReadJob(Transaction& transaction, std::string_view job_id,
                                bool for_update) {
  const pqxx::result rows =
      transaction.exec_prepared(for_update ? "get_job_for_update" : "get_job", std::string(job_id));
  if (rows.empty()) return JobNotFound(job_id);
  return ParseField<v1::Job>(rows[0][0], JobWhat(job_id));
}

absl::Status RequireJob(Transaction& transaction, std::string_view job_id) {
  if (transaction.exec_prepared("job_exists", std::string(job_id)).empty()) {
    return JobNotFound(job_id);
  }
  return absl::OkStatus();
}

}  // namespace

PostgresStorage::PostgresStorage(std::string description, const PostgresStorageOptions& options,
                                 std::unique_ptr<PostgresConnectionPool> pool,
                                 std::unique_ptr<PostgresConnectionPool> lock_pool,
                                 std::unique_ptr<PostgresConnectionPool> measurement_batch_pool,
                                 std::unique_ptr<PostgresConnectionPool> change_lookup_pool)
    : description_(std::move(description)),
      options_(options),
      pool_(std::move(pool)),
      lock_pool_(std::move(lock_pool)),
      measurement_batch_pool_(std::move(measurement_batch_pool)),
      change_lookup_pool_(std::move(change_lookup_pool)),
      measurement_commits_(options.max_measurements_per_commit,
                           [this](std::span<const MeasurementAppend* const> batch) {
                             return AppendMeasurementBatch(batch);
                           }),
      outage_(absl::StrCat("PostgreSQL store ", description_)) {}

absl::StatusOr<std::unique_ptr<PostgresStorage>> PostgresStorage::Open(const std::string& url) {
  return Open(url, PostgresStorageOptions());
}

absl::StatusOr<std::unique_ptr<PostgresStorage>> PostgresStorage::Open(
    const std::string& url, const PostgresStorageOptions& options) {
  if (url.empty()) return absl::InvalidArgumentError("the PostgreSQL URL is empty");
  const std::string description = RedactPostgresUrl(url);
  const std::string connect_url = WithUrlParameter(
      url, "connect_timeout",
      absl::StrCat(std::max<int64_t>(1, absl::ToInt64Seconds(options.connect_timeout))));
  auto pool =
      std::make_unique<PostgresConnectionPool>(connect_url, description, options.max_connections,
                                               options.retry_timeout, PreparePostgresStatements);
  const absl::Duration lock_timeout = options.study_lock_timeout;
  auto lock_pool = std::make_unique<PostgresConnectionPool>(
      connect_url, description, options.max_lock_connections, options.study_lock_timeout,
      [lock_timeout](pqxx::connection& connection) {
        PreparePostgresLockSession(connection, lock_timeout);
      });
  // One connection: GroupCommit writes one batch at a time.
  auto measurement_batch_pool = std::make_unique<PostgresConnectionPool>(
      connect_url, description, /*max_connections=*/1, options.retry_timeout,
      PreparePostgresIndexLookupSession);
  auto change_lookup_pool = std::make_unique<PostgresConnectionPool>(
      connect_url, description, options.max_change_lookup_connections, options.retry_timeout,
      PreparePostgresIndexLookupSession);
  int previous_version = 0;
  {
    // The first connection migrates, then serves transactions like the rest.
    VERNIER_ASSIGN_OR_RETURN(PostgresConnectionPool::Lease connection, pool->Acquire());
    absl::StatusOr<int> migrated =
        MigratePostgresSchema(*connection, PostgresSchemaMigrations(), description);
    if (!migrated.ok()) return migrated.status();
    previous_version = *migrated;
  }
  spdlog::info("opened PostgreSQL store {} (schema version {}, was {})", description,
               PostgresSchemaMigrations().size(), previous_version);
  return std::unique_ptr<PostgresStorage>(
      new PostgresStorage(description, options, std::move(pool), std::move(lock_pool),
                          std::move(measurement_batch_pool), std::move(change_lookup_pool)));
}

absl::Status PostgresStorage::RunOnce(PostgresConnectionPool& pool, TransactionKind kind,
                                      std::string_view doing, const TransactionBody& body) {
  VERNIER_ASSIGN_OR_RETURN(PostgresConnectionPool::Lease connection, pool.Acquire());
  try {
    const WriteFence* fence = ScopedWriteFence::Current();
    const bool fenced = fence != nullptr && &pool == pool_.get() &&
                        (kind == TransactionKind::kWrite || kind == TransactionKind::kWriteOne);
    if (fenced) {
      // The lease check and the write commit together.
      pqxx::work transaction(*connection);
      const pqxx::result lease = transaction.exec_prepared("check_job_lease", fence->job_id);
      const std::string holder = lease.empty() ? "" : lease[0][0].as<std::string>();
      const int64_t token = lease.empty() ? 0 : lease[0][1].as<int64_t>();
      if (holder != fence->holder || token != fence->token) {
        return ScopedWriteFence::Refused(*fence, holder, token);
      }
      absl::Status status = body(transaction);
      if (status.ok()) transaction.commit();
      return status;
    }
    if (kind == TransactionKind::kReadOne || kind == TransactionKind::kWriteOne) {
      // One statement sees one snapshot, and commits, alone: no BEGIN and COMMIT.
      pqxx::nontransaction transaction(*connection);
      return body(transaction);
    }
    if (kind == TransactionKind::kRead) {
      ReadOnlySnapshot transaction(*connection);
      absl::Status status = body(transaction);
      if (status.ok()) transaction.commit();
      return status;
    }
    pqxx::work transaction(*connection);
    absl::Status status = body(transaction);
    // On an error the transaction's destructor rolls it back.
    if (status.ok()) transaction.commit();
    return status;
  } catch (const std::exception& error) {
    // A broken connection is closed when the lease ends (the pool's check).
    return PostgresError(error, doing);
  }
}

absl::Status PostgresStorage::WriteTrialUntilItHolds(std::string_view doing,
                                                     const TrialWriteAttempt& attempt) {
  const absl::Time deadline = absl::Now() + options_.retry_timeout;
  for (;;) {
    bool held = false;
    VERNIER_RETURN_IF_ERROR(
        RunInTransaction(TransactionKind::kWriteOne, doing,
                         [&](Transaction& transaction) { return attempt(transaction, held); }));
    if (held) return absl::OkStatus();
    if (absl::Now() >= deadline) {
      return absl::AbortedError(absl::StrCat(
          "PostgreSQL store ", description_, ": ", text::AbslView(doing),
          ": the trial kept changing for ", absl::FormatDuration(options_.retry_timeout)));
    }
  }
}

absl::Status PostgresStorage::RunInTransaction(TransactionKind kind, std::string_view doing,
                                               const TransactionBody& body) {
  return RunInTransaction(*pool_, kind, doing, body);
}

absl::Status PostgresStorage::RunInTransaction(PostgresConnectionPool& pool, TransactionKind kind,
                                               std::string_view doing,
                                               const TransactionBody& body) {
  const absl::Time deadline = absl::Now() + options_.retry_timeout;
  absl::Duration backoff = absl::Milliseconds(2);
  for (int attempt = 1;; ++attempt) {
    absl::Status status = RunOnce(pool, kind, doing, body);
    // Retryable failures include a refused connection: a server restarting.
    const bool write = kind == TransactionKind::kWrite || kind == TransactionKind::kWriteOne;
    if (status.ok() || !IsRetryablePostgresError(status) || absl::Now() >= deadline) {
      outage_.Observe(status, write, absl::Now());
      return status;
    }
    // A lost or refused connection again on a fresh one: the server is away
    // while this call retries. (Once is a pooled connection left over from
    // before a restart; a conflict is no outage.)
    if (attempt >= 2 && absl::IsUnavailable(status)) outage_.Observe(status, write, absl::Now());
    spdlog::debug("PostgreSQL store {}: {} (attempt {}); running it again", description_,
                  std::string(status.message()), attempt);
    absl::SleepFor(backoff);
    backoff = std::min(backoff * 2, absl::Milliseconds(200));
  }
}

// ---------------------------------------------------------------- studies

absl::StatusOr<v1::Study> PostgresStorage::CreateStudy(const v1::Study& study) {
  if (study.name().empty()) return absl::InvalidArgumentError("study.name is empty");
  VERNIER_RETURN_IF_ERROR(RunInTransaction(
      TransactionKind::kWrite, absl::StrCat("creating ", StudyWhat(study.name())),
      [&](Transaction& transaction) -> absl::Status {
        VERNIER_ASSIGN_OR_RETURN(
            const std::vector<v1::Job> jobs,
            ParseBodies<v1::Job>(transaction.exec_prepared("list_all_jobs_oldest_first"), "job"));
        VERNIER_RETURN_IF_ERROR(CheckStudyNameOfNoJob(study.name(), jobs));
        const pqxx::result inserted =
            transaction.exec_prepared("insert_study", study.name(), static_cast<int>(study.state()),
                                      ToMicros(study.create_time()), Bytes(study));
        if (inserted.affected_rows() == 0) {
          return absl::AlreadyExistsError(
              absl::StrCat("study \"", study.name(), "\" already exists"));
        }
        return absl::OkStatus();
      }));
  return study;
}

absl::StatusOr<v1::Study> PostgresStorage::GetStudy(std::string_view study_name) {
  v1::Study study;
  VERNIER_RETURN_IF_ERROR(RunInTransaction(
      TransactionKind::kReadOne, absl::StrCat("reading ", StudyWhat(study_name)),
      [&](Transaction& transaction) -> absl::Status {
        VERNIER_ASSIGN_OR_RETURN(study, ReadStudy(transaction, study_name, /*for_update=*/false));
        return absl::OkStatus();
      }));
  return study;
}

absl::StatusOr<Page<v1::Study>> PostgresStorage::ListStudies(int page_size,
                                                             std::string_view page_token) {
  VERNIER_ASSIGN_OR_RETURN(const std::string after_name, StudiesAfter(page_size, page_token));
  Page<v1::Study> page;
  VERNIER_RETURN_IF_ERROR(RunInTransaction(
      TransactionKind::kReadOne, "listing studies", [&](Transaction& transaction) -> absl::Status {
        // Study names are never empty, so "" comes before every one.
        VERNIER_ASSIGN_OR_RETURN(
            page.items, ParseBodies<v1::Study>(transaction.exec_prepared("list_studies", after_name,
                                                                         RowLimit(page_size)),
                                               "study"));
        return absl::OkStatus();
      }));
  FinishStudyPage(page, page_size);
  return page;
}

absl::StatusOr<v1::Study> PostgresStorage::UpdateStudy(std::string_view study_name,
                                                       const StudyMutator& mutate) {
  v1::Study study;
  VERNIER_RETURN_IF_ERROR(RunInTransaction(
      TransactionKind::kWrite, absl::StrCat("updating ", StudyWhat(study_name)),
      [&](Transaction& transaction) -> absl::Status {
        VERNIER_ASSIGN_OR_RETURN(study, ReadStudy(transaction, study_name, /*for_update=*/true));
        if (mutate) VERNIER_RETURN_IF_ERROR(mutate(study));
        study.set_name(std::string(study_name));
        transaction.exec_prepared("update_study", study.name(), static_cast<int>(study.state()),
                                  ToMicros(study.create_time()), Bytes(study));
        return absl::OkStatus();
      }));
  return study;
}

absl::Status PostgresStorage::DeleteStudy(std::string_view study_name) {
  VERNIER_RETURN_IF_ERROR(RunInTransaction(
      TransactionKind::kWrite, absl::StrCat("deleting ", StudyWhat(study_name)),
      [&](Transaction& transaction) -> absl::Status {
        // Trials and their measurements go by ON DELETE CASCADE.
        const pqxx::result deleted =
            transaction.exec_prepared("delete_study", std::string(study_name));
        if (deleted.affected_rows() == 0) return StudyNotFound(study_name);
        {
          absl::MutexLock lock(&largest_trial_ids_mutex_);
          largest_trial_ids_.erase(std::string(study_name));
        }
        // A job and its study are committed together, so the job of a study
        // this DELETE found is in the next statement's snapshot; a refusal
        // rolls the DELETE back.
        VERNIER_ASSIGN_OR_RETURN(
            const std::vector<v1::Job> unfinished,
            ParseBodies<v1::Job>(
                transaction.exec_prepared(
                    "list_jobs_in_states_oldest_first",
                    IntegerArray(std::span<const v1::Job::State>(kUnfinishedJobStates))),
                "job"));
        return CheckNoUnfinishedJobRuns(study_name, unfinished);
      }));
  spdlog::info("deleted study {} with its trials from PostgreSQL store {}", study_name,
               description_);
  return absl::OkStatus();
}

// ----------------------------------------------------------------- trials

absl::StatusOr<std::vector<v1::Trial>> PostgresStorage::CreateTrials(
    std::string_view study_name, std::span<const v1::Trial> trials) {
  if (!trials.empty() && std::none_of(trials.begin(), trials.end(), [](const v1::Trial& trial) {
        return trial.has_final_measurement();
      })) {
    return CreateTrialsAfter(study_name, trials);
  }
  std::vector<v1::Trial> created;
  VERNIER_RETURN_IF_ERROR(RunInTransaction(
      TransactionKind::kWrite, absl::StrCat("creating trials in ", StudyWhat(study_name)),
      [&](Transaction& transaction) -> absl::Status {
        created.clear();
        // The study row's lock makes concurrent creators take turns, so
        // each sees the ids the one before it committed.
        VERNIER_ASSIGN_OR_RETURN(const v1::Study study,
                                 ReadStudy(transaction, study_name, /*for_update=*/true));
        const int64_t next_id =
            transaction.exec_prepared("largest_trial_id", study.name())[0][0].as<int64_t>() + 1;
        if (trials.empty()) return absl::OkStatus();
        TrialsToInsert insert = NewTrialRows(trials, study_name, next_id, &study.spec());
        transaction.exec_prepared("insert_trials", std::string(study_name), insert.ids,
                                  insert.states, insert.client_ids, insert.rank_keys,
                                  insert.bodies);
        created = std::move(insert.rows);
        return absl::OkStatus();
      }));
  return created;
}

absl::StatusOr<std::vector<v1::Trial>> PostgresStorage::CreateTrialsAfter(
    std::string_view study_name, std::span<const v1::Trial> trials) {
  const std::string doing = absl::StrCat("creating trials in ", StudyWhat(study_name));
  const std::string study(study_name);
  std::optional<int64_t> largest;
  {
    absl::MutexLock lock(&largest_trial_ids_mutex_);
    if (const auto known = largest_trial_ids_.find(study); known != largest_trial_ids_.end()) {
      largest = known->second;
    }
  }
  const absl::Time deadline = absl::Now() + options_.retry_timeout;
  // Whether the largest id was read during this call: only then does
  // losing to another creator count against the retry timeout.
  bool largest_read = false;
  for (;;) {
    if (!largest.has_value()) {
      largest_read = true;
      VERNIER_RETURN_IF_ERROR(RunInTransaction(
          TransactionKind::kReadOne, doing, [&](Transaction& transaction) -> absl::Status {
            largest = transaction.exec_prepared("largest_trial_id", study)[0][0].as<int64_t>();
            return absl::OkStatus();
          }));
    }
    TrialsToInsert insert = NewTrialRows(trials, study_name, *largest + 1, /*spec=*/nullptr);
    bool inserted = false;
    bool missing_study = false;
    VERNIER_RETURN_IF_ERROR(RunInTransaction(
        TransactionKind::kWriteOne, doing, [&](Transaction& transaction) -> absl::Status {
          try {
            inserted =
                transaction
                    .exec_prepared("insert_trials_after", study, insert.ids, insert.states,
                                   insert.client_ids, insert.rank_keys, insert.bodies, *largest)
                    .affected_rows() == insert.rows.size();
          } catch (const pqxx::unique_violation&) {
            // Another creator took these ids first.
            inserted = false;
          } catch (const pqxx::foreign_key_violation&) {
            missing_study = true;
          }
          return absl::OkStatus();
        }));
    if (missing_study) return StudyNotFound(study_name);
    absl::MutexLock lock(&largest_trial_ids_mutex_);
    if (inserted) {
      largest_trial_ids_[study] = insert.rows.back().id();
      return std::move(insert.rows);
    }
    largest_trial_ids_.erase(study);
    largest.reset();
    if (largest_read && absl::Now() >= deadline) {
      return absl::AbortedError(absl::StrCat("PostgreSQL store ", description_, ": ", doing,
                                             ": other creators kept taking the ids for ",
                                             absl::FormatDuration(options_.retry_timeout)));
    }
  }
}

absl::StatusOr<v1::Trial> PostgresStorage::GetTrial(std::string_view study_name, int64_t trial_id,
                                                    bool include_measurements) {
  v1::Trial trial;
  VERNIER_RETURN_IF_ERROR(RunInTransaction(
      include_measurements ? TransactionKind::kRead : TransactionKind::kReadOne,
      absl::StrCat("reading ", DescribeTrial(study_name, trial_id)),
      [&](Transaction& transaction) -> absl::Status {
        VERNIER_ASSIGN_OR_RETURN(trial, ReadTrial(transaction, study_name, trial_id));
        if (!include_measurements) return absl::OkStatus();
        return ReadMeasurements(transaction, study_name, std::span<v1::Trial>(&trial, 1));
      }));
  return trial;
}

namespace {

// The rows of one ListTrials page (RowLimit: one more than the page):
// TRIAL_COLUMNS, then the id.
pqxx::result SelectTrialPage(Transaction& transaction, std::string_view study_name,
                             const TrialQuery& query, int64_t after_id) {
  const std::string study(study_name);
  return query.states.empty()
             ? transaction.exec_prepared("list_trials", study, after_id, RowLimit(query.page_size))
             : transaction.exec_prepared(
                   "list_trials_in_states", study, after_id,
                   IntegerArray(std::span<const v1::Trial::State>(query.states)),
                   RowLimit(query.page_size));
}

// A trial row's v1::Trial as bytes, without parsing: the body (stored
// without the two fields below) followed by the measurement count and the
// latest measurement from their columns, fields that a parser merges into
// the message as TrialRow() sets them.
std::string TrialRowBytes(const pqxx::row& row) {
  using google::protobuf::internal::WireFormatLite;
  const pqxx::binarystring body(row[0]);
  std::string bytes(reinterpret_cast<const char*>(body.data()), body.size());
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream out(&stream);
    if (const int64_t count = row[1].as<int64_t>(); count != 0) {
      WireFormatLite::WriteInt64(v1::Trial::kMeasurementCountFieldNumber, count, &out);
    }
    if (!row[2].is_null()) {
      const pqxx::binarystring latest(row[2]);
      WireFormatLite::WriteBytes(
          v1::Trial::kLatestMeasurementFieldNumber,
          std::string(reinterpret_cast<const char*>(latest.data()), latest.size()), &out);
    }
  }
  return bytes;
}

}  // namespace

absl::StatusOr<Page<v1::Trial>> PostgresStorage::ListTrials(std::string_view study_name,
                                                            const TrialQuery& query) {
  VERNIER_ASSIGN_OR_RETURN(const int64_t after_id, TrialsAfter(query));
  Page<v1::Trial> page;
  bool more_pages = false;
  // Without measurements one statement reads the page; only an empty page
  // needs a second, to tell a missing study from one without such trials.
  VERNIER_RETURN_IF_ERROR(RunInTransaction(
      query.include_measurements ? TransactionKind::kRead : TransactionKind::kReadOne,
      absl::StrCat("listing the trials of ", StudyWhat(study_name)),
      [&](Transaction& transaction) -> absl::Status {
        if (query.include_measurements) {
          VERNIER_RETURN_IF_ERROR(RequireStudy(transaction, study_name));
        }
        VERNIER_ASSIGN_OR_RETURN(
            page.items, TrialRows(SelectTrialPage(transaction, study_name, query, after_id),
                                  absl::StrCat("trial of ", StudyWhat(study_name))));
        more_pages = TrimToPage(page.items, query.page_size);
        if (!query.include_measurements) {
          return page.items.empty() ? RequireStudy(transaction, study_name) : absl::OkStatus();
        }
        return ReadMeasurements(transaction, study_name, std::span<v1::Trial>(page.items));
      }));
  if (more_pages) page.next_page_token = EncodeTrialPageToken(page.items.back().id());
  return page;
}

absl::StatusOr<Page<SerializedTrial>> PostgresStorage::ListTrialBodies(std::string_view study_name,
                                                                       const TrialQuery& query) {
  // Measurements live in rows of their own: such a page is put together.
  if (query.include_measurements) {
    VERNIER_ASSIGN_OR_RETURN(const Page<v1::Trial> page, ListTrials(study_name, query));
    return SerializeTrials(page);
  }
  VERNIER_ASSIGN_OR_RETURN(const int64_t after_id, TrialsAfter(query));
  Page<SerializedTrial> page;
  VERNIER_RETURN_IF_ERROR(RunInTransaction(
      TransactionKind::kReadOne, absl::StrCat("listing the trials of ", StudyWhat(study_name)),
      [&](Transaction& transaction) -> absl::Status {
        page.items.clear();
        for (const pqxx::row& row : SelectTrialPage(transaction, study_name, query, after_id)) {
          page.items.push_back({row[3].as<int64_t>(), TrialRowBytes(row)});
        }
        return page.items.empty() ? RequireStudy(transaction, study_name) : absl::OkStatus();
      }));
  VERNIER_RETURN_IF_ERROR(FinishTrialBodyPage(study_name, page, query.page_size));
  return page;
}

absl::StatusOr<TrialChanges> PostgresStorage::ListTrialChanges(std::string_view study_name,
                                                               std::string_view since) {
  int64_t since_revision = 0;
  if (!since.empty() &&
      (!absl::SimpleAtoi(text::AbslView(since), &since_revision) || since_revision < 0)) {
    return absl::InvalidArgumentError(absl::StrCat("listing the trials of ", StudyWhat(study_name),
                                                   " written since \"", text::AbslView(since),
                                                   "\": not a horizon of this store's"));
  }
  TrialChanges changes;
  // Every trial: any plan reads the study's rows. Since a horizon: a session
  // that plans by index only (PreparePostgresIndexLookupSession).
  VERNIER_RETURN_IF_ERROR(RunInTransaction(
      since.empty() ? *pool_ : *change_lookup_pool_, TransactionKind::kReadOne,
      absl::StrCat("listing the trials of ", StudyWhat(study_name)),
      [&](Transaction& transaction) -> absl::Status {
        const pqxx::result rows =
            since.empty()
                ? transaction.exec_prepared("list_all_trial_changes", std::string(study_name))
                : transaction.exec_prepared("list_trial_changes", std::string(study_name),
                                            since_revision);
        // One row at least: the horizon and whether the study exists.
        if (!rows[0][5].as<bool>()) return StudyNotFound(study_name);
        changes.horizon = rows[0][4].as<std::string>();
        changes.trials.clear();
        for (const pqxx::row& row : rows) {
          if (!row[3].is_null())
            changes.trials.push_back({row[3].as<int64_t>(), TrialRowBytes(row)});
        }
        return absl::OkStatus();
      }));
  VERNIER_RETURN_IF_ERROR(CheckTrialBodies(study_name, changes.trials));
  return changes;
}

absl::StatusOr<std::vector<v1::Trial>> PostgresStorage::ListBestTrials(std::string_view study_name,
                                                                       int limit) {
  VERNIER_RETURN_IF_ERROR(CheckLimit(limit));
  std::vector<v1::Trial> best;
  VERNIER_RETURN_IF_ERROR(RunInTransaction(
      TransactionKind::kRead, absl::StrCat("ranking the trials of ", StudyWhat(study_name)),
      [&](Transaction& transaction) -> absl::Status {
        VERNIER_RETURN_IF_ERROR(RequireStudy(transaction, study_name));
        VERNIER_ASSIGN_OR_RETURN(
            best, TrialRows(transaction.exec_prepared("list_best_trials", std::string(study_name),
                                                      limit == 0 ? RowLimit(0) : limit),
                            absl::StrCat("trial of ", StudyWhat(study_name))));
        return absl::OkStatus();
      }));
  return best;
}

absl::StatusOr<std::map<v1::Trial::State, int64_t>> PostgresStorage::CountTrials(
    std::string_view study_name) {
  std::map<v1::Trial::State, int64_t> counts;
  VERNIER_RETURN_IF_ERROR(RunInTransaction(
      TransactionKind::kRead, absl::StrCat("counting the trials of ", StudyWhat(study_name)),
      [&](Transaction& transaction) -> absl::Status {
        counts.clear();
        VERNIER_RETURN_IF_ERROR(RequireStudy(transaction, study_name));
        for (const pqxx::row& row :
             transaction.exec_prepared("count_trials", std::string(study_name))) {
          counts[static_cast<v1::Trial::State>(row[0].as<int>())] = row[1].as<int64_t>();
        }
        return absl::OkStatus();
      }));
  return counts;
}

// Optimistic: the trial and its study in one statement, then the new trial
// written only if the row is still the version read (its xmin), all without
// BEGIN and COMMIT: two round trips instead of five. Another writer in
// between (a measurement, say) makes the write miss, and the update starts
// over from a fresh read.
absl::StatusOr<v1::Trial> PostgresStorage::UpdateTrialInStudy(std::string_view study_name,
                                                              int64_t trial_id,
                                                              const TrialInStudyMutator& mutate) {
  v1::Trial trial;
  VERNIER_RETURN_IF_ERROR(WriteTrialUntilItHolds(
      absl::StrCat("updating ", DescribeTrial(study_name, trial_id)),
      [&](Transaction& transaction, bool& held) -> absl::Status {
        const pqxx::result rows =
            transaction.exec_prepared("get_trial_with_study", std::string(study_name), trial_id);
        if (rows.empty()) return MissingTrial(transaction, study_name, trial_id);
        const pqxx::row row = rows[0];
        VERNIER_ASSIGN_OR_RETURN(const v1::Trial stored,
                                 TrialRow(row, DescribeTrial(study_name, trial_id)));
        VERNIER_ASSIGN_OR_RETURN(const v1::Study study,
                                 ParseField<v1::Study>(row[4], StudyWhat(study_name)));
        trial = stored;
        if (mutate) VERNIER_RETURN_IF_ERROR(mutate(trial, study));
        KeepStoreOwnedFields(stored, trial);
        std::optional<double> rank_key;
        if (trial.has_final_measurement()) rank_key = RankKey(trial, study.spec());
        const pqxx::result updated = transaction.exec_prepared(
            "update_trial_if_unchanged", trial.study_name(), trial.id(),
            static_cast<int>(trial.state()), trial.client_id(), RankKeyParameter(rank_key),
            pqxx::binarystring(TrialBody(trial)), row[3].c_str());
        held = updated.affected_rows() == 1;
        return absl::OkStatus();
      }));
  return trial;
}

absl::StatusOr<v1::Trial> PostgresStorage::StopTrialIfActive(std::string_view study_name,
                                                             int64_t trial_id,
                                                             std::string_view reason) {
  // An empty reason is no field in the appended bytes and would leave the
  // stored one: the read and write then.
  if (reason.empty()) return Storage::StopTrialIfActive(study_name, trial_id, reason);
  v1::Trial moved;
  moved.set_state(v1::Trial::STOPPING);
  moved.set_status_reason(std::string(reason));
  const pqxx::binarystring appended = Bytes(moved);
  v1::Trial trial;
  VERNIER_RETURN_IF_ERROR(WriteTrialUntilItHolds(
      absl::StrCat("stopping ", DescribeTrial(study_name, trial_id)),
      [&](Transaction& transaction, bool& held) -> absl::Status {
        const pqxx::result rows = transaction.exec_prepared(
            "stop_trial_if_active", std::string(study_name), trial_id,
            static_cast<int>(v1::Trial::STOPPING), appended, static_cast<int>(v1::Trial::ACTIVE));
        if (rows.empty()) return MissingTrial(transaction, study_name, trial_id);
        VERNIER_ASSIGN_OR_RETURN(trial, TrialRow(rows[0], DescribeTrial(study_name, trial_id)));
        // Not moved, yet ACTIVE: the row as this statement's snapshot saw it,
        // before a writer that committed while the update waited.
        held = rows[0][3].as<bool>() || trial.state() != v1::Trial::ACTIVE;
        return absl::OkStatus();
      }));
  return trial;
}

absl::StatusOr<v1::Trial> PostgresStorage::AddMeasurements(
    std::string_view study_name, int64_t trial_id, std::span<const v1::Measurement> measurements,
    std::span<const v1::Trial::State> accepting_states) {
  if (measurements.empty()) {
    absl::StatusOr<v1::Trial> trial =
        GetTrial(study_name, trial_id, /*include_measurements=*/false);
    if (trial.ok() && !AcceptsMeasurements(trial->state(), accepting_states)) {
      return NotAcceptingMeasurements(study_name, trial_id, trial->state(), accepting_states);
    }
    return trial;
  }
  if (measurement_commits_.Takes(measurements)) {
    return measurement_commits_.Write({study_name, trial_id, measurements, accepting_states});
  }
  return AppendMeasurement({study_name, trial_id, measurements, accepting_states});
}

absl::StatusOr<v1::Trial> PostgresStorage::AppendInTransaction(
    std::string_view study_name, int64_t trial_id, std::span<const v1::Measurement> measurements,
    std::span<const v1::Trial::State> accepting_states) {
  const std::string states = IntegerArray(accepting_states);
  v1::Trial trial;
  VERNIER_RETURN_IF_ERROR(RunInTransaction(
      TransactionKind::kWrite,
      absl::StrCat("adding measurements to ", DescribeTrial(study_name, trial_id)),
      [&](Transaction& transaction) -> absl::Status {
        std::vector<absl::StatusOr<v1::Trial>> outcomes;
        for (const v1::Measurement& measurement : measurements) {
          const pqxx::result rows = transaction.exec_prepared(
              "append_measurement", std::string(study_name), trial_id,
              measurement.sequence_number(), measurement.step(), Bytes(measurement), states);
          if (rows.empty()) return MissingTrial(transaction, study_name, trial_id);
          outcomes.push_back(
              AppendOutcome(rows[0], study_name, trial_id, measurement, accepting_states));
          VERNIER_RETURN_IF_ERROR(outcomes.back().status());
        }
        VERNIER_ASSIGN_OR_RETURN(trial, CombineAppendOutcomes(measurements, std::move(outcomes)));
        return absl::OkStatus();
      }));
  return trial;
}

void PostgresStorage::AddMeasurementsAsync(std::string_view study_name, int64_t trial_id,
                                           std::span<const v1::Measurement> measurements,
                                           std::span<const v1::Trial::State> accepting_states,
                                           MeasurementDone done) {
  measurement_commits_.SubmitOrAdd(*this, study_name, trial_id, measurements, accepting_states,
                                   std::move(done));
}

absl::StatusOr<v1::Trial> PostgresStorage::AppendMeasurement(const MeasurementAppend& append) {
  if (append.measurements.size() != 1 || append.measurements[0].sequence_number() <= 0) {
    return AppendInTransaction(append.study_name, append.trial_id, append.measurements,
                               append.accepting_states);
  }
  const v1::Measurement& measurement = append.measurements[0];
  v1::Trial trial;
  VERNIER_RETURN_IF_ERROR(RunInTransaction(
      TransactionKind::kWriteOne,
      absl::StrCat("adding a measurement to ", DescribeTrial(append.study_name, append.trial_id)),
      [&](Transaction& transaction) -> absl::Status {
        const pqxx::result rows = transaction.exec_prepared(
            "append_measurement", std::string(append.study_name), append.trial_id,
            measurement.sequence_number(), measurement.step(), Bytes(measurement),
            IntegerArray(append.accepting_states));
        if (rows.empty()) return MissingTrial(transaction, append.study_name, append.trial_id);
        VERNIER_ASSIGN_OR_RETURN(trial, AppendOutcome(rows[0], append.study_name, append.trial_id,
                                                      measurement, append.accepting_states));
        return absl::OkStatus();
      }));
  return trial;
}

std::vector<absl::StatusOr<v1::Trial>> PostgresStorage::AppendMeasurementBatch(
    std::span<const MeasurementAppend* const> batch) {
  if (batch.size() == 1 && batch[0]->measurements.size() == 1) {
    return {AppendMeasurement(*batch[0])};
  }
  // One statement for each list of accepting states and each round, where
  // round r holds the (r+1)-th measurement of every trial in the batch: one
  // statement appends to a trial at most once, and a later round sees the
  // count the earlier one wrote. When a call sent several, one round holds
  // them all: append_measurement_runs numbers a trial's measurements in one
  // statement.
  struct Statement {
    std::string states;
    std::vector<size_t> appends;    // indexes into `batch`
    std::vector<size_t> positions;  // of the measurement in its append
    std::vector<std::string> study_names;
    std::vector<int64_t> trial_ids, sequence_numbers, steps;
    std::vector<std::string> bodies;
  };
  std::vector<Statement> statements;
  const bool runs = std::any_of(batch.begin(), batch.end(), [](const MeasurementAppend* append) {
    return append->measurements.size() > 1;
  });
  {
    std::map<std::tuple<std::string, std::string_view, int64_t>, size_t> appends_to_trial;
    std::map<std::pair<std::string, size_t>, size_t> statement_of_round;
    for (size_t i = 0; i < batch.size(); ++i) {
      const MeasurementAppend& append = *batch[i];
      const std::string states = IntegerArray(append.accepting_states);
      for (size_t j = 0; j < append.measurements.size(); ++j) {
        const v1::Measurement& measurement = append.measurements[j];
        const size_t round =
            runs ? 0 : appends_to_trial[{states, append.study_name, append.trial_id}]++;
        const auto [it, inserted] =
            statement_of_round.try_emplace({states, round}, statements.size());
        if (inserted) {
          statements.emplace_back();
          statements.back().states = states;
        }
        Statement& statement = statements[it->second];
        statement.appends.push_back(i);
        statement.positions.push_back(j);
        statement.study_names.emplace_back(append.study_name);
        statement.trial_ids.push_back(append.trial_id);
        statement.sequence_numbers.push_back(measurement.sequence_number());
        statement.steps.push_back(measurement.step());
        statement.bodies.push_back(SerializeBody(measurement));
      }
    }
  }

  // Each measurement's outcome, by append and position in it.
  std::vector<std::vector<absl::StatusOr<v1::Trial>>> outcomes(batch.size());
  const absl::Status status = RunInTransaction(
      *measurement_batch_pool_,
      // One statement stores all or nothing (append_measurement_runs too).
      statements.size() == 1 ? TransactionKind::kWriteOne : TransactionKind::kWrite,
      absl::StrCat("adding ", batch.size(), " appends of measurements"),
      [&](Transaction& transaction) -> absl::Status {
        for (size_t i = 0; i < batch.size(); ++i) {
          outcomes[i].assign(batch[i]->measurements.size(),
                             absl::InternalError("measurement not appended"));
        }
        // Why each append's trial is missing, asked once per append.
        std::vector<std::optional<absl::Status>> missing(batch.size());
        for (const Statement& statement : statements) {
          pqxx::result rows;
          try {
            rows = transaction.exec_prepared(
                runs ? "append_measurement_runs" : "append_measurements",
                TextArray(statement.study_names), BigintArray(statement.trial_ids),
                BigintArray(statement.sequence_numbers), BigintArray(statement.steps),
                ByteaArray(statement.bodies), statement.states);
          } catch (const pqxx::unique_violation& error) {
            // Only append_measurement_runs inserts without ON CONFLICT.
            return absl::AbortedError(absl::StrCat(
                "PostgreSQL store ", description_,
                ": a measurement of a batch could not be "
                "appended (its sequence number was stored meanwhile, or is twice in the "
                "batch), so none was: ",
                absl::StripTrailingAsciiWhitespace(error.what())));
          }
          std::vector<bool> found(statement.appends.size(), false);
          for (const pqxx::row& row : rows) {
            const int64_t position = row[5].as<int64_t>() - 1;
            if (position < 0 || position >= static_cast<int64_t>(found.size())) {
              return absl::InternalError(absl::StrCat("PostgreSQL store ", description_,
                                                      " returned measurement ", position + 1,
                                                      " of a batch of ", found.size()));
            }
            found[position] = true;
            // A guard, not a path: a chosen measurement that cannot be
            // inserted fails append_measurement_runs on the unique index
            // (caught above), so every chosen one is appended.
            if (runs && row[7].as<int64_t>() != row[8].as<int64_t>()) {
              return absl::AbortedError(absl::StrCat(
                  "PostgreSQL store ", description_, ": only ", row[8].as<int64_t>(), " of the ",
                  row[7].as<int64_t>(), " measurements of a batch to be appended to trial ",
                  statement.trial_ids[position],
                  " were appended, though the statement stores "
                  "all or none"));
            }
            const size_t i = statement.appends[position];
            const MeasurementAppend& append = *batch[i];
            const size_t j = statement.positions[position];
            outcomes[i][j] = AppendOutcome(row, append.study_name, append.trial_id,
                                           append.measurements[j], append.accepting_states);
          }
          for (size_t k = 0; k < found.size(); ++k) {
            if (found[k]) continue;
            const size_t i = statement.appends[k];
            if (!missing[i].has_value()) {
              missing[i] = MissingTrial(transaction, batch[i]->study_name, batch[i]->trial_id);
            }
            outcomes[i][statement.positions[k]] = *missing[i];
          }
        }
        return absl::OkStatus();
      });
  std::vector<absl::StatusOr<v1::Trial>> results;
  if (status.ok()) {
    for (size_t i = 0; i < batch.size(); ++i) {
      results.push_back(CombineAppendOutcomes(batch[i]->measurements, std::move(outcomes[i])));
    }
    return results;
  }
  if (IsRetryablePostgresError(status)) {
    results.assign(batch.size(), status);
    return results;
  }
  spdlog::warn("PostgreSQL store {}: a batch of {} appends failed ({}); adding each alone",
               description_, batch.size(), status.ToString());
  results.clear();
  for (const MeasurementAppend* append : batch) results.push_back(AppendMeasurement(*append));
  return results;
}

// ------------------------------------------------------------------- jobs

absl::StatusOr<v1::Job> PostgresStorage::CreateJob(const v1::Job& job, const v1::Study& study) {
  VERNIER_ASSIGN_OR_RETURN(const v1::Job stored, JobToCreate(job, study));
  VERNIER_RETURN_IF_ERROR(RunInTransaction(
      TransactionKind::kWrite, absl::StrCat("creating ", JobWhat(stored.job_id())),
      [&](Transaction& transaction) -> absl::Status {
        if (!transaction.exec_prepared("job_exists", stored.job_id()).empty()) {
          return absl::AlreadyExistsError(
              absl::StrCat("job \"", stored.job_id(), "\" already exists"));
        }
        const pqxx::result study_inserted =
            transaction.exec_prepared("insert_study", study.name(), static_cast<int>(study.state()),
                                      ToMicros(study.create_time()), Bytes(study));
        if (study_inserted.affected_rows() == 0) {
          return absl::AlreadyExistsError(absl::StrCat("study \"", study.name(),
                                                       "\" already exists, so job \"",
                                                       stored.job_id(), "\" cannot use it"));
        }
        // Another server may have created the job since the check above.
        const pqxx::result job_inserted = transaction.exec_prepared(
            "insert_job", stored.job_id(), static_cast<int>(stored.state()),
            ToMicros(stored.create_time()), Bytes(stored));
        if (job_inserted.affected_rows() == 0) {
          return absl::AlreadyExistsError(
              absl::StrCat("job \"", stored.job_id(), "\" already exists"));
        }
        return absl::OkStatus();
      }));
  return stored;
}

absl::StatusOr<v1::Job> PostgresStorage::GetJob(std::string_view job_id) {
  v1::Job job;
  VERNIER_RETURN_IF_ERROR(RunInTransaction(
      TransactionKind::kReadOne, absl::StrCat("reading ", JobWhat(job_id)),
      [&](Transaction& transaction) -> absl::Status {
        VERNIER_ASSIGN_OR_RETURN(job, ReadJob(transaction, job_id, /*for_update=*/false));
        return absl::OkStatus();
      }));
  return job;
}

absl::StatusOr<Page<v1::Job>> PostgresStorage::ListJobs(int page_size,
                                                        std::string_view page_token) {
  VERNIER_ASSIGN_OR_RETURN(const std::optional<JobPageCursor> after,
                           JobsAfter(page_size, page_token));
  Page<v1::Job> page;
  VERNIER_RETURN_IF_ERROR(RunInTransaction(
      TransactionKind::kReadOne, "listing jobs", [&](Transaction& transaction) -> absl::Status {
        const pqxx::result rows =
            after.has_value()
                ? transaction.exec_prepared("list_jobs_after", after->create_time_micros,
                                            after->job_id, RowLimit(page_size))
                : transaction.exec_prepared("list_jobs", RowLimit(page_size));
        VERNIER_ASSIGN_OR_RETURN(page.items, ParseBodies<v1::Job>(rows, "job"));
        return absl::OkStatus();
      }));
  FinishJobPage(page, page_size);
  return page;
}

absl::StatusOr<std::vector<v1::Job>> PostgresStorage::ListJobsInStates(
    std::span<const v1::Job::State> states) {
  std::vector<v1::Job> jobs;
  VERNIER_RETURN_IF_ERROR(RunInTransaction(
      TransactionKind::kReadOne, "listing jobs by state",
      [&](Transaction& transaction) -> absl::Status {
        const pqxx::result rows =
            states.empty() ? transaction.exec_prepared("list_all_jobs_oldest_first")
                           : transaction.exec_prepared("list_jobs_in_states_oldest_first",
                                                       IntegerArray(states));
        VERNIER_ASSIGN_OR_RETURN(jobs, ParseBodies<v1::Job>(rows, "job"));
        return absl::OkStatus();
      }));
  return jobs;
}

absl::StatusOr<v1::Job> PostgresStorage::UpdateJob(std::string_view job_id,
                                                   const JobMutator& mutate) {
  v1::Job job;
  VERNIER_RETURN_IF_ERROR(RunInTransaction(
      TransactionKind::kWrite, absl::StrCat("updating ", JobWhat(job_id)),
      [&](Transaction& transaction) -> absl::Status {
        VERNIER_ASSIGN_OR_RETURN(job, ReadJob(transaction, job_id, /*for_update=*/true));
        if (mutate) VERNIER_RETURN_IF_ERROR(mutate(job));
        job.set_job_id(std::string(job_id));
        transaction.exec_prepared("update_job", job.job_id(), static_cast<int>(job.state()),
                                  ToMicros(job.create_time()), Bytes(job));
        return absl::OkStatus();
      }));
  return job;
}

absl::StatusOr<v1::Job> PostgresStorage::DeleteJob(std::string_view job_id) {
  v1::Job job;
  VERNIER_RETURN_IF_ERROR(RunInTransaction(
      TransactionKind::kWrite, absl::StrCat("deleting ", JobWhat(job_id)),
      [&](Transaction& transaction) -> absl::Status {
        // The row lock keeps a concurrent update (a cancel, a new state)
        // from slipping between the check and the delete.
        VERNIER_ASSIGN_OR_RETURN(job, ReadJob(transaction, job_id, /*for_update=*/true));
        VERNIER_RETURN_IF_ERROR(CheckJobDeletable(job));
        for (const char* statement :
             {"delete_job", "delete_job_lease", "delete_agent_contacts", "delete_replica_exits"}) {
          transaction.exec_prepared(statement, std::string(job_id));
        }
        // Trials and their measurements go by ON DELETE CASCADE.
        transaction.exec_prepared("delete_study", job.study_name());
        return absl::OkStatus();
      }));
  spdlog::info("job={} deleted with study {} and its trials from PostgreSQL store {}", job_id,
               job.study_name(), description_);
  return job;
}

absl::Status PostgresStorage::PutTrialRun(std::string_view job_id, const v1::TrialRun& run) {
  return RunInTransaction(
      TransactionKind::kWrite,
      absl::StrCat("storing the run of trial ", run.trial_id(), " of ", JobWhat(job_id)),
      [&](Transaction& transaction) -> absl::Status {
        VERNIER_RETURN_IF_ERROR(RequireJob(transaction, job_id));
        transaction.exec_prepared("upsert_trial_run", std::string(job_id), run.trial_id(),
                                  Bytes(run));
        return absl::OkStatus();
      });
}

absl::StatusOr<std::vector<v1::TrialRun>> PostgresStorage::ListTrialRuns(std::string_view job_id) {
  return ReadTrialRuns(job_id, std::nullopt);
}

absl::StatusOr<std::vector<v1::TrialRun>> PostgresStorage::ListTrialRunsOf(
    std::string_view job_id, std::span<const int64_t> trial_ids) {
  return ReadTrialRuns(job_id, trial_ids);
}

absl::StatusOr<std::vector<v1::TrialRun>> PostgresStorage::ReadTrialRuns(
    std::string_view job_id, std::optional<std::span<const int64_t>> trial_ids) {
  std::vector<v1::TrialRun> runs;
  VERNIER_RETURN_IF_ERROR(RunInTransaction(
      TransactionKind::kRead, absl::StrCat("listing the trial runs of ", JobWhat(job_id)),
      [&](Transaction& transaction) -> absl::Status {
        VERNIER_RETURN_IF_ERROR(RequireJob(transaction, job_id));
        const pqxx::result rows =
            trial_ids.has_value()
                ? transaction.exec_prepared("list_trial_runs_of", std::string(job_id),
                                            BigintArray(*trial_ids))
                : transaction.exec_prepared("list_trial_runs", std::string(job_id));
        VERNIER_ASSIGN_OR_RETURN(
            runs, ParseBodies<v1::TrialRun>(rows, absl::StrCat("trial run of ", JobWhat(job_id))));
        return absl::OkStatus();
      }));
  return runs;
}

absl::StatusOr<std::unique_ptr<StudyLock>> PostgresStorage::LockStudy(std::string_view study_name) {
  // A lost connection (a server restart) is tried again on a new one, as a
  // transaction is (RunInTransaction).
  const absl::Time deadline = absl::Now() + options_.retry_timeout;
  absl::Duration backoff = absl::Milliseconds(2);
  absl::StatusOr<std::unique_ptr<PostgresStudyLock>> lock;
  for (int attempt = 1;; ++attempt) {
    absl::StatusOr<PostgresConnectionPool::Lease> connection = lock_pool_->Acquire();
    lock = connection.ok() ? PostgresStudyLock::Acquire(*std::move(connection), study_name)
                           : connection.status();
    const bool lost = absl::IsUnavailable(lock.status()) && IsTransientStoreError(lock.status());
    if (lock.ok() || !lost || absl::Now() >= deadline) {
      outage_.Observe(lock.status(), /*write=*/false, absl::Now());
      break;
    }
    if (attempt >= 2) outage_.Observe(lock.status(), /*write=*/false, absl::Now());
    absl::SleepFor(backoff);
    backoff = std::min(backoff * 2, absl::Milliseconds(200));
  }
  if (!lock.ok()) return lock.status();
  return std::unique_ptr<StudyLock>(*std::move(lock));
}

// ---------------------------------------------------------------- API tokens

absl::Status PostgresStorage::CreateApiToken(std::string_view token_hash,
                                             const v1::ApiToken& token) {
  VERNIER_RETURN_IF_ERROR(CheckApiTokenToCreate(token_hash, token));
  return RunInTransaction(
      TransactionKind::kWrite, absl::StrCat("storing API token ", token.id()),
      [&](Transaction& transaction) -> absl::Status {
        const pqxx::result inserted =
            transaction.exec_prepared("insert_api_token", token.id(), std::string(token_hash),
                                      ToMicros(token.create_time()), Bytes(token));
        return inserted.affected_rows() == 1 ? absl::OkStatus() : ApiTokenExists(token.id());
      });
}

absl::StatusOr<v1::ApiToken> PostgresStorage::FindApiToken(std::string_view token_hash) {
  v1::ApiToken token;
  VERNIER_RETURN_IF_ERROR(RunInTransaction(
      TransactionKind::kReadOne, "looking up an API token",
      [&](Transaction& transaction) -> absl::Status {
        const pqxx::result rows =
            transaction.exec_prepared("find_api_token", std::string(token_hash));
        if (rows.empty()) return NoTokenWithThatHash();
        VERNIER_ASSIGN_OR_RETURN(token, ParseField<v1::ApiToken>(rows[0][0], "API token"));
        return absl::OkStatus();
      }));
  return token;
}

absl::StatusOr<std::vector<v1::ApiToken>> PostgresStorage::ListApiTokens() {
  std::vector<v1::ApiToken> tokens;
  VERNIER_RETURN_IF_ERROR(RunInTransaction(
      TransactionKind::kReadOne, "listing API tokens",
      [&](Transaction& transaction) -> absl::Status {
        VERNIER_ASSIGN_OR_RETURN(
            tokens,
            ParseBodies<v1::ApiToken>(transaction.exec_prepared("list_api_tokens"), "API token"));
        return absl::OkStatus();
      }));
  return tokens;
}

absl::StatusOr<v1::ApiToken> PostgresStorage::UpdateApiToken(std::string_view token_id,
                                                             const ApiTokenMutator& mutate) {
  v1::ApiToken token;
  VERNIER_RETURN_IF_ERROR(RunInTransaction(
      TransactionKind::kWrite, absl::StrCat("updating API token ", text::AbslView(token_id)),
      [&](Transaction& transaction) -> absl::Status {
        const pqxx::result rows =
            transaction.exec_prepared("get_api_token_for_update", std::string(token_id));
        if (rows.empty()) return ApiTokenNotFound(token_id);
        VERNIER_ASSIGN_OR_RETURN(token, ParseField<v1::ApiToken>(rows[0][0], "API token"));
        if (mutate) VERNIER_RETURN_IF_ERROR(mutate(token));
        token.set_id(std::string(token_id));
        transaction.exec_prepared("update_api_token", std::string(token_id), Bytes(token));
        return absl::OkStatus();
      }));
  return token;
}

absl::Status PostgresStorage::DeleteApiToken(std::string_view token_id) {
  return RunInTransaction(
      TransactionKind::kWrite, absl::StrCat("deleting API token ", text::AbslView(token_id)),
      [&](Transaction& transaction) -> absl::Status {
        const pqxx::result deleted =
            transaction.exec_prepared("delete_api_token", std::string(token_id));
        return deleted.affected_rows() == 1 ? absl::OkStatus() : ApiTokenNotFound(token_id);
      });
}

// ---------------------------------------------------------------- audit log

namespace {

std::vector<StoredAuditRow> AuditRows(const pqxx::result& result) {
  std::vector<StoredAuditRow> rows;
  rows.reserve(result.size());
  for (const auto& row : result) {
    const pqxx::binarystring body(row[4]);
    rows.push_back(StoredAuditRow{row[0].as<int64_t>(), row[1].as<int64_t>(),
                                  row[2].as<std::string>(), row[3].as<std::string>(), body.str(),
                                  row[5].as<std::string>()});
  }
  return rows;
}

}  // namespace

absl::Status PostgresStorage::AppendAuditEntries(std::span<const v1::AuditEntry> entries) {
  if (entries.empty()) return absl::OkStatus();
  const std::string doing = absl::StrCat("appending ", entries.size(), " audit rows");
  absl::MutexLock lock(&audit_mutex_);
  const absl::Time deadline = absl::Now() + options_.retry_timeout;
  const auto read_head = [&]() -> absl::Status {
    std::vector<StoredAuditRow> head;
    VERNIER_RETURN_IF_ERROR(RunInTransaction(
        TransactionKind::kReadOne, doing, [&](Transaction& transaction) -> absl::Status {
          head = AuditRows(transaction.exec_prepared("last_audit_row"));
          return absl::OkStatus();
        }));
    // An empty log: the first row chains after none.
    audit_head_ = head.empty() ? StoredAuditRow{} : std::move(head.front());
    return absl::OkStatus();
  };
  // Whether the head was read during this call: only then does losing to
  // another server count against the retry timeout.
  bool head_read = false;
  for (;;) {
    if (!audit_head_.has_value()) {
      VERNIER_RETURN_IF_ERROR(read_head());
      head_read = true;
    }
    std::vector<StoredAuditRow> rows;
    rows.reserve(entries.size());
    for (const v1::AuditEntry& entry : entries) {
      const StoredAuditRow* previous = rows.empty() ? &*audit_head_ : &rows.back();
      rows.push_back(ChainAuditRow(previous->sequence == 0 ? nullptr : previous, entry));
    }
    std::vector<int64_t> sequences, times;
    std::vector<std::string> users, resources, bodies, hashes;
    for (const StoredAuditRow& row : rows) {
      sequences.push_back(row.sequence);
      times.push_back(row.time_micros);
      users.push_back(row.user);
      resources.push_back(row.resource);
      bodies.push_back(row.body);
      hashes.push_back(row.hash);
    }
    bool taken = false;
    VERNIER_RETURN_IF_ERROR(RunInTransaction(
        TransactionKind::kWriteOne, doing, [&](Transaction& transaction) -> absl::Status {
          try {
            transaction.exec_prepared("insert_audit_rows", BigintArray(sequences),
                                      BigintArray(times), TextArray(users), TextArray(resources),
                                      ByteaArray(bodies), TextArray(hashes));
          } catch (const pqxx::unique_violation&) {
            // Another server appended after the head known here.
            taken = true;
          }
          return absl::OkStatus();
        }));
    if (!taken) {
      audit_head_ = std::move(rows.back());
      return absl::OkStatus();
    }
    VERNIER_RETURN_IF_ERROR(read_head());
    // A retry on a new connection after one that committed but was lost
    // finds its own rows: they are in.
    if (audit_head_->sequence == rows.back().sequence && audit_head_->hash == rows.back().hash) {
      return absl::OkStatus();
    }
    const bool lost_after_reading = std::exchange(head_read, true);
    if (lost_after_reading && absl::Now() >= deadline) {
      return absl::AbortedError(absl::StrCat("PostgreSQL store ", description_, ": ", doing,
                                             ": other servers kept appending for ",
                                             absl::FormatDuration(options_.retry_timeout)));
    }
  }
}

absl::StatusOr<std::vector<v1::AuditEntry>> PostgresStorage::ListAuditEntries(
    const AuditQuery& query) {
  std::vector<StoredAuditRow> rows;
  VERNIER_RETURN_IF_ERROR(RunInTransaction(TransactionKind::kReadOne, "listing the audit log",
                                           [&](Transaction& transaction) -> absl::Status {
                                             rows = AuditRows(transaction.exec_prepared(
                                                 "list_audit_rows", query.user, query.resource,
                                                 query.since.has_value()
                                                     ? absl::ToUnixMicros(*query.since)
                                                     : std::numeric_limits<int64_t>::min(),
                                                 static_cast<int64_t>(query.limit)));
                                             return absl::OkStatus();
                                           }));
  std::vector<v1::AuditEntry> entries;
  for (auto row = rows.rbegin(); row != rows.rend(); ++row) {
    VERNIER_ASSIGN_OR_RETURN(entries.emplace_back(), AuditEntryOfRow(*row));
  }
  return entries;
}

absl::StatusOr<std::vector<StoredAuditRow>> PostgresStorage::ReadAuditChain() {
  std::vector<StoredAuditRow> rows;
  VERNIER_RETURN_IF_ERROR(RunInTransaction(TransactionKind::kReadOne, "reading the audit log",
                                           [&](Transaction& transaction) -> absl::Status {
                                             rows = AuditRows(
                                                 transaction.exec_prepared("read_audit_chain"));
                                             return absl::OkStatus();
                                           }));
  return rows;
}

// ---------------------------------------------------------------- job coordination

absl::StatusOr<std::vector<JobLease>> PostgresStorage::AcquireJobLeases(
    std::string_view holder, std::span<const std::string> job_ids, absl::Duration ttl) {
  std::vector<std::string> sorted(job_ids.begin(), job_ids.end());
  std::sort(sorted.begin(), sorted.end());
  std::vector<JobLease> leases;
  if (sorted.empty()) return leases;
  VERNIER_RETURN_IF_ERROR(RunInTransaction(
      TransactionKind::kWriteOne, absl::StrCat("taking the leases of ", sorted.size(), " jobs"),
      [&](Transaction& transaction) -> absl::Status {
        leases.clear();
        for (const pqxx::row& row :
             transaction.exec_prepared("acquire_job_leases", std::string(holder), TextArray(sorted),
                                       absl::ToInt64Microseconds(ttl))) {
          leases.push_back({row[0].as<std::string>(), row[1].as<int64_t>()});
        }
        return absl::OkStatus();
      }));
  std::sort(leases.begin(), leases.end(),
            [](const JobLease& a, const JobLease& b) { return a.job_id < b.job_id; });
  return leases;
}

absl::Status PostgresStorage::ReleaseJobLeases(std::string_view holder,
                                               std::span<const std::string> job_ids) {
  if (job_ids.empty()) return absl::OkStatus();
  const std::vector<std::string> ids(job_ids.begin(), job_ids.end());
  return RunInTransaction(TransactionKind::kWriteOne, "releasing job leases",
                          [&](Transaction& transaction) -> absl::Status {
                            transaction.exec_prepared("release_job_leases", std::string(holder),
                                                      TextArray(ids));
                            return absl::OkStatus();
                          });
}

absl::Status PostgresStorage::RecordServer(std::string_view server_id,
                                           std::string_view agent_address, absl::Duration ttl) {
  return RunInTransaction(
      TransactionKind::kWrite, absl::StrCat("recording server ", text::AbslView(server_id)),
      [&](Transaction& transaction) -> absl::Status {
        transaction.exec_prepared("record_server", std::string(server_id),
                                  std::string(agent_address), absl::ToInt64Microseconds(ttl));
        transaction.exec_prepared("forget_dead_servers");
        return absl::OkStatus();
      });
}

absl::StatusOr<std::vector<std::string>> PostgresStorage::ListLiveServerAddresses() {
  std::vector<std::string> addresses;
  VERNIER_RETURN_IF_ERROR(RunInTransaction(
      TransactionKind::kReadOne, "listing the live servers",
      [&](Transaction& transaction) -> absl::Status {
        addresses.clear();
        for (const pqxx::row& row : transaction.exec_prepared("live_server_addresses")) {
          addresses.push_back(row[0].as<std::string>());
        }
        return absl::OkStatus();
      }));
  return addresses;
}

absl::Status PostgresStorage::RecordAgentContact(std::string_view job_id, int64_t trial_id,
                                                 std::string_view replica) {
  return RunInTransaction(
      TransactionKind::kWriteOne,
      absl::StrCat("recording an agent contact of trial ", trial_id, " of ", JobWhat(job_id)),
      [&](Transaction& transaction) -> absl::Status {
        transaction.exec_prepared("record_agent_contact", std::string(job_id), trial_id,
                                  std::string(replica));
        return absl::OkStatus();
      });
}

absl::StatusOr<std::optional<absl::Duration>> PostgresStorage::AgentContactAge(
    std::string_view job_id, int64_t trial_id, std::string_view replica) {
  std::optional<absl::Duration> age;
  VERNIER_RETURN_IF_ERROR(RunInTransaction(
      TransactionKind::kReadOne,
      absl::StrCat("reading an agent contact of trial ", trial_id, " of ", JobWhat(job_id)),
      [&](Transaction& transaction) -> absl::Status {
        const pqxx::result rows = transaction.exec_prepared(
            "agent_contact_age", std::string(job_id), trial_id, std::string(replica));
        age.reset();
        if (!rows.empty()) age = absl::Microseconds(rows[0][0].as<int64_t>());
        return absl::OkStatus();
      }));
  return age;
}

absl::Status PostgresStorage::QueueReplicaExit(std::string_view job_id,
                                               const v1::ReportExitRequest& report) {
  return RunInTransaction(TransactionKind::kWriteOne,
                          absl::StrCat("keeping an exit report of trial ",
                                       report.replica().trial_id(), " of ", JobWhat(job_id)),
                          [&](Transaction& transaction) -> absl::Status {
                            transaction.exec_prepared("queue_replica_exit", std::string(job_id),
                                                      Bytes(report));
                            return absl::OkStatus();
                          });
}

absl::StatusOr<std::vector<v1::ReportExitRequest>> PostgresStorage::TakeReplicaExits(
    std::string_view job_id) {
  std::vector<v1::ReportExitRequest> reports;
  VERNIER_RETURN_IF_ERROR(RunInTransaction(
      TransactionKind::kWriteOne, absl::StrCat("taking the exit reports of ", JobWhat(job_id)),
      [&](Transaction& transaction) -> absl::Status {
        std::vector<std::pair<int64_t, v1::ReportExitRequest>> taken;
        for (const pqxx::row& row :
             transaction.exec_prepared("take_replica_exits", std::string(job_id))) {
          VERNIER_ASSIGN_OR_RETURN(v1::ReportExitRequest report,
                                   ParseField<v1::ReportExitRequest>(
                                       row[1], absl::StrCat("exit report of ", JobWhat(job_id))));
          taken.emplace_back(row[0].as<int64_t>(), std::move(report));
        }
        std::sort(taken.begin(), taken.end(),
                  [](const auto& a, const auto& b) { return a.first < b.first; });
        reports.clear();
        for (auto& [id, report] : taken) reports.push_back(std::move(report));
        return absl::OkStatus();
      }));
  return reports;
}

}  // namespace vernier::storage
