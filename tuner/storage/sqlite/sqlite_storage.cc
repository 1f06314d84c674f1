#include "tuner/storage/sqlite/sqlite_storage.h"

#include <algorithm>
#include <filesystem>
#include <limits>
#include <mutex>
#include <optional>
#include <system_error>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "common/status_macros.h"
#include "google/protobuf/timestamp.pb.h"
#include "spdlog/spdlog.h"
#include "text/absl_view.h"
#include "tuner/storage/page_token.h"
#include "tuner/storage/scoped_write_fence.h"
#include "tuner/storage/sqlite/sqlite_error.h"
#include "tuner/storage/sqlite/sqlite_rows.h"
#include "tuner/storage/sqlite/sqlite_schema.h"
#include "tuner/storage/sqlite/sqlite_statement.h"
#include "tuner/storage/sqlite/sqlite_study_lock.h"
#include "tuner/storage/stored_rows.h"

namespace vernier::storage {
namespace {

absl::StatusOr<bool> RowExists(SqliteConnection& connection, std::string_view sql,
                               std::string_view key) {
  VERNIER_ASSIGN_OR_RETURN(SqliteStatement select, connection.Prepare(sql));
  select.BindText(1, key);
  return select.Step();
}

absl::StatusOr<bool> StudyExists(SqliteConnection& connection, std::string_view study_name) {
  return RowExists(connection, "SELECT 1 FROM studies WHERE name = ?", study_name);
}

absl::StatusOr<bool> JobExists(SqliteConnection& connection, std::string_view job_id) {
  return RowExists(connection, "SELECT 1 FROM jobs WHERE job_id = ?", job_id);
}

absl::Status RequireStudy(SqliteConnection& connection, std::string_view study_name) {
  VERNIER_ASSIGN_OR_RETURN(const bool exists, StudyExists(connection, study_name));
  return exists ? absl::OkStatus() : StudyNotFound(study_name);
}

absl::Status RequireJob(SqliteConnection& connection, std::string_view job_id) {
  VERNIER_ASSIGN_OR_RETURN(const bool exists, JobExists(connection, job_id));
  return exists ? absl::OkStatus() : JobNotFound(job_id);
}

absl::StatusOr<v1::Study> ReadStudy(SqliteConnection& connection, std::string_view study_name) {
  VERNIER_ASSIGN_OR_RETURN(SqliteStatement select,
                           connection.Prepare("SELECT body FROM studies WHERE name = ?"));
  select.BindText(1, study_name);
  VERNIER_ASSIGN_OR_RETURN(const bool found, select.Step());
  if (!found) return StudyNotFound(study_name);
  return ParseBody<v1::Study>(select.ColumnBlob(0),
                              absl::StrCat("study \"", text::AbslView(study_name), "\""));
}

absl::Status InsertStudy(SqliteConnection& connection, const v1::Study& study) {
  VERNIER_ASSIGN_OR_RETURN(
      SqliteStatement insert,
      connection.Prepare(
          "INSERT INTO studies (name, state, create_time_micros, body) VALUES (?, ?, ?, ?)"));
  return insert.BindText(1, study.name())
      .BindInt64(2, study.state())
      .BindInt64(3, ToMicros(study.create_time()))
      .BindBlob(4, SerializeBody(study))
      .Run();
}

absl::StatusOr<v1::Trial> ReadTrial(SqliteConnection& connection, std::string_view study_name,
                                    int64_t trial_id) {
  VERNIER_ASSIGN_OR_RETURN(
      SqliteStatement select,
      connection.Prepare("SELECT body FROM trials WHERE study_name = ? AND id = ?"));
  select.BindText(1, study_name).BindInt64(2, trial_id);
  VERNIER_ASSIGN_OR_RETURN(const bool found, select.Step());
  if (!found) {
    // Say which is missing: the study, or only the trial.
    VERNIER_RETURN_IF_ERROR(RequireStudy(connection, study_name));
    return TrialNotFound(study_name, trial_id);
  }
  return ParseBody<v1::Trial>(select.ColumnBlob(0), DescribeTrial(study_name, trial_id));
}

absl::Status ReadMeasurements(SqliteConnection& connection, v1::Trial& trial) {
  VERNIER_ASSIGN_OR_RETURN(
      SqliteStatement select,
      connection.Prepare("SELECT body FROM measurements WHERE study_name = ? AND trial_id = ? "
                         "ORDER BY ordinal"));
  select.BindText(1, trial.study_name()).BindInt64(2, trial.id());
  trial.clear_measurements();
  for (;;) {
    VERNIER_ASSIGN_OR_RETURN(const bool has_row, select.Step());
    if (!has_row) return absl::OkStatus();
    VERNIER_ASSIGN_OR_RETURN(
        *trial.add_measurements(),
        ParseBody<v1::Measurement>(
            select.ColumnBlob(0),
            absl::StrCat("measurement of ", DescribeTrial(trial.study_name(), trial.id()))));
  }
}

absl::StatusOr<int64_t> LargestTrialId(SqliteConnection& connection, std::string_view study_name) {
  VERNIER_ASSIGN_OR_RETURN(
      SqliteStatement select,
      connection.Prepare("SELECT COALESCE(MAX(id), 0) FROM trials WHERE study_name = ?"));
  select.BindText(1, study_name);
  VERNIER_ASSIGN_OR_RETURN(const bool has_row, select.Step());
  return has_row ? select.ColumnInt64(0) : 0;
}

// Appends each row of `select` (id, body) to `trials`.
absl::Status AppendTrialBodies(SqliteStatement& select, std::vector<SerializedTrial>& trials) {
  for (;;) {
    VERNIER_ASSIGN_OR_RETURN(const bool has_row, select.Step());
    if (!has_row) return absl::OkStatus();
    trials.push_back({select.ColumnInt64(0), std::string(select.ColumnBlob(1))});
  }
}

// The revision an updated trial row takes (ListTrialChanges): one more than
// its study's largest, this row's included; InsertTrialRow's for a new row.
#define NEXT_TRIAL_REVISION                                   \
  "(SELECT MAX(written.revision) + 1 FROM trials AS written " \
  "WHERE written.study_name = trials.study_name)"

// Writes back a trial read in the same transaction; its key is unchanged.
absl::Status UpdateTrialRow(SqliteConnection& connection, const v1::Trial& trial,
                            std::optional<double> rank_key) {
  VERNIER_ASSIGN_OR_RETURN(
      SqliteStatement update,
      connection.Prepare("UPDATE trials SET state = ?, client_id = ?, rank_key = ?, body = ?, "
                         "revision = " NEXT_TRIAL_REVISION " WHERE study_name = ? AND id = ?"));
  return update.BindInt64(1, trial.state())
      .BindText(2, trial.client_id())
      .BindOptionalDouble(3, rank_key)
      .BindBlob(4, SerializeBody(trial))
      .BindText(5, trial.study_name())
      .BindInt64(6, trial.id())
      .Run();
}

// Writes back a trial whose state, client and final measurement are as read.
absl::Status UpdateTrialBody(SqliteConnection& connection, const v1::Trial& trial) {
  VERNIER_ASSIGN_OR_RETURN(
      SqliteStatement update,
      connection.Prepare("UPDATE trials SET body = ?, revision = " NEXT_TRIAL_REVISION
                         " WHERE study_name = ? AND id = ?"));
  return update.BindBlob(1, SerializeBody(trial))
      .BindText(2, trial.study_name())
      .BindInt64(3, trial.id())
      .Run();
}

#undef NEXT_TRIAL_REVISION

absl::StatusOr<bool> SequenceNumberStored(SqliteConnection& connection, std::string_view study_name,
                                          int64_t trial_id, int64_t sequence_number) {
  VERNIER_ASSIGN_OR_RETURN(
      SqliteStatement select,
      connection.Prepare("SELECT 1 FROM measurements "
                         "WHERE study_name = ? AND trial_id = ? AND sequence_number = ?"));
  select.BindText(1, study_name).BindInt64(2, trial_id).BindInt64(3, sequence_number);
  return select.Step();
}

absl::StatusOr<v1::Job> ReadJob(SqliteConnection& connection, std::string_view job_id) {
  VERNIER_ASSIGN_OR_RETURN(SqliteStatement select,
                           connection.Prepare("SELECT body FROM jobs WHERE job_id = ?"));
  select.BindText(1, job_id);
  VERNIER_ASSIGN_OR_RETURN(const bool found, select.Step());
  if (!found) return JobNotFound(job_id);
  return ParseBody<v1::Job>(select.ColumnBlob(0),
                            absl::StrCat("job \"", text::AbslView(job_id), "\""));
}

// Collects the `body` column of every row as `Message`, in the order given.
template <typename Message>
absl::StatusOr<std::vector<Message>> ReadBodies(SqliteStatement& select, int body_column,
                                                absl::string_view what) {
  std::vector<Message> messages;
  for (;;) {
    VERNIER_ASSIGN_OR_RETURN(const bool has_row, select.Step());
    if (!has_row) return messages;
    VERNIER_ASSIGN_OR_RETURN(Message message,
                             ParseBody<Message>(select.ColumnBlob(body_column), what));
    messages.push_back(std::move(message));
  }
}

int64_t NowMicros() { return absl::ToUnixMicros(absl::Now()); }

// A fenced write (ScopedWriteFence) goes on only while its server holds the
// job's lease with its token; inside BEGIN IMMEDIATE, nobody takes it
// meanwhile.
absl::Status CheckWriteFence(SqliteConnection& connection) {
  const WriteFence* fence = ScopedWriteFence::Current();
  if (fence == nullptr) return absl::OkStatus();
  VERNIER_ASSIGN_OR_RETURN(
      SqliteStatement select,
      connection.Prepare("SELECT holder, token FROM job_leases WHERE job_id = ?"));
  select.BindText(1, fence->job_id);
  VERNIER_ASSIGN_OR_RETURN(const bool found, select.Step());
  const std::string holder = found ? select.ColumnText(0) : "";
  const int64_t token = found ? select.ColumnInt64(1) : 0;
  if (holder != fence->holder || token != fence->token) {
    return ScopedWriteFence::Refused(*fence, holder, token);
  }
  return absl::OkStatus();
}

// " IN (?, ?, ...)" with `count` placeholders (an empty list for 0, which
// SQLite allows and matches nothing).
std::string InList(size_t count) {
  std::string list = " IN (";
  for (size_t i = 0; i < count; ++i) list += i == 0 ? "?" : ", ?";
  return list + ")";
}

// Oldest first; every job for no states.
absl::StatusOr<std::vector<v1::Job>> ReadJobsInStates(SqliteConnection& connection,
                                                      std::span<const v1::Job::State> states) {
  std::string sql = "SELECT body FROM jobs";
  if (!states.empty()) sql += absl::StrCat(" WHERE state", InList(states.size()));
  sql += " ORDER BY create_time_micros, job_id";
  VERNIER_ASSIGN_OR_RETURN(SqliteStatement select, connection.Prepare(sql));
  int index = 1;
  for (const v1::Job::State state : states) select.BindInt64(index++, state);
  return ReadBodies<v1::Job>(select, 0, "job");
}

}  // namespace

SqliteStorage::SqliteStorage(std::string path, const SqliteStorageOptions& options,
                             std::unique_ptr<SqliteConnectionPool> pool)
    : path_(std::move(path)),
      options_(options),
      pool_(std::move(pool)),
      outage_(absl::StrCat("SQLite store ", path_)),
      measurement_commits_(options.max_measurements_per_commit,
                           [this](std::span<const MeasurementAppend* const> batch) {
                             return AppendMeasurementBatch(batch);
                           }) {}

absl::StatusOr<std::unique_ptr<SqliteStorage>> SqliteStorage::Open(const std::string& path) {
  return Open(path, SqliteStorageOptions());
}

absl::StatusOr<std::unique_ptr<SqliteStorage>> SqliteStorage::Open(
    const std::string& path, const SqliteStorageOptions& options) {
  if (path.empty()) {
    return absl::InvalidArgumentError("the SQLite database path is empty");
  }
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) {
    std::error_code error;
    std::filesystem::create_directories(parent, error);
    if (error) {
      return absl::FailedPreconditionError(
          absl::StrCat("cannot open SQLite database \"", path, "\": creating directory \"",
                       parent.string(), "\" failed: ", error.message()));
    }
  }
  VERNIER_ASSIGN_OR_RETURN(std::unique_ptr<SqliteConnection> connection,
                           SqliteConnection::Open(path, options.busy_timeout));
  VERNIER_RETURN_IF_ERROR(connection->CheckIntact());
  VERNIER_ASSIGN_OR_RETURN(
      const int previous_version,
      MigrateSqliteSchema(*connection, SqliteSchemaMigrations(), SqliteDataMigrations));
  VERNIER_RETURN_IF_ERROR(connection->CheckWritable());
  auto pool =
      std::make_unique<SqliteConnectionPool>(path, options.max_connections, options.busy_timeout);
  pool->Adopt(std::move(connection));
  spdlog::info("opened SQLite store {} (schema version {}, was {})", path,
               SqliteSchemaMigrations().size(), previous_version);
  return std::unique_ptr<SqliteStorage>(new SqliteStorage(path, options, std::move(pool)));
}

absl::Status SqliteStorage::RunInTransaction(TransactionKind kind, const TransactionBody& body) {
  std::unique_lock writer_turn(writers_, std::defer_lock);
  if (kind == TransactionKind::kWrite) writer_turn.lock();
  const absl::Time deadline = absl::Now() + options_.busy_timeout;
  absl::Duration backoff = absl::Milliseconds(1);
  for (int attempt = 1;; ++attempt) {
    absl::StatusOr<SqliteConnectionPool::Lease> lease = pool_->Acquire();
    if (!lease.ok()) {
      outage_.Observe(lease.status(), kind == TransactionKind::kWrite, absl::Now());
      return lease.status();
    }
    SqliteConnectionPool::Lease& connection = *lease;
    // IMMEDIATE takes the write lock before reading, so a write transaction
    // never finds its snapshot stale at its first write.
    absl::Status status =
        connection->Execute(kind == TransactionKind::kWrite ? "BEGIN IMMEDIATE" : "BEGIN");
    if (status.ok() && kind == TransactionKind::kWrite) status = CheckWriteFence(*connection);
    if (status.ok()) status = body(*connection);
    if (status.ok()) status = connection->Execute("COMMIT");
    if (!status.ok() && connection->InTransaction()) {
      if (absl::Status rollback = connection->Execute("ROLLBACK"); !rollback.ok()) {
        spdlog::warn("rolling back a transaction on SQLite store {} failed: {}", path_,
                     std::string(rollback.message()));
      }
    }
    if (status.ok() || !IsSqliteBusy(status) || absl::Now() >= deadline) {
      outage_.Observe(status, kind == TransactionKind::kWrite, absl::Now());
      return status;
    }
    spdlog::debug("SQLite store {} is busy (attempt {}): {}; retrying", path_, attempt,
                  std::string(status.message()));
    absl::SleepFor(backoff);
    backoff = std::min(backoff * 2, absl::Milliseconds(50));
  }
}

absl::StatusOr<v1::Study> SqliteStorage::CreateStudy(const v1::Study& study) {
  if (study.name().empty()) return absl::InvalidArgumentError("study.name is empty");
  VERNIER_RETURN_IF_ERROR(
      RunInTransaction(TransactionKind::kWrite, [&](SqliteConnection& connection) -> absl::Status {
        VERNIER_ASSIGN_OR_RETURN(const bool exists, StudyExists(connection, study.name()));
        if (exists) {
          return absl::AlreadyExistsError(
              absl::StrCat("study \"", study.name(), "\" already exists"));
        }
        VERNIER_ASSIGN_OR_RETURN(const std::vector<v1::Job> jobs, ReadJobsInStates(connection, {}));
        VERNIER_RETURN_IF_ERROR(CheckStudyNameOfNoJob(study.name(), jobs));
        return InsertStudy(connection, study);
      }));
  return study;
}

absl::StatusOr<v1::Study> SqliteStorage::GetStudy(std::string_view study_name) {
  v1::Study study;
  VERNIER_RETURN_IF_ERROR(
      RunInTransaction(TransactionKind::kRead, [&](SqliteConnection& connection) -> absl::Status {
        VERNIER_ASSIGN_OR_RETURN(study, ReadStudy(connection, study_name));
        return absl::OkStatus();
      }));
  return study;
}

absl::StatusOr<Page<v1::Study>> SqliteStorage::ListStudies(int page_size,
                                                           std::string_view page_token) {
  VERNIER_ASSIGN_OR_RETURN(const std::string after_name, StudiesAfter(page_size, page_token));
  Page<v1::Study> page;
  VERNIER_RETURN_IF_ERROR(
      RunInTransaction(TransactionKind::kRead, [&](SqliteConnection& connection) -> absl::Status {
        // Study names are never empty, so "" comes before every one.
        VERNIER_ASSIGN_OR_RETURN(
            SqliteStatement select,
            connection.Prepare("SELECT body FROM studies WHERE name > ? ORDER BY name LIMIT ?"));
        select.BindText(1, after_name).BindInt64(2, RowLimit(page_size));
        VERNIER_ASSIGN_OR_RETURN(page.items, ReadBodies<v1::Study>(select, 0, "study"));
        return absl::OkStatus();
      }));
  FinishStudyPage(page, page_size);
  return page;
}

absl::StatusOr<v1::Study> SqliteStorage::UpdateStudy(std::string_view study_name,
                                                     const StudyMutator& mutate) {
  v1::Study study;
  VERNIER_RETURN_IF_ERROR(
      RunInTransaction(TransactionKind::kWrite, [&](SqliteConnection& connection) -> absl::Status {
        VERNIER_ASSIGN_OR_RETURN(study, ReadStudy(connection, study_name));
        if (mutate) VERNIER_RETURN_IF_ERROR(mutate(study));
        study.set_name(std::string(study_name));
        VERNIER_ASSIGN_OR_RETURN(
            SqliteStatement update,
            connection.Prepare("UPDATE studies SET state = ?, create_time_micros = ?, body = ? "
                               "WHERE name = ?"));
        return update.BindInt64(1, study.state())
            .BindInt64(2, ToMicros(study.create_time()))
            .BindBlob(3, SerializeBody(study))
            .BindText(4, study_name)
            .Run();
      }));
  return study;
}

absl::Status SqliteStorage::DeleteStudy(std::string_view study_name) {
  VERNIER_RETURN_IF_ERROR(
      RunInTransaction(TransactionKind::kWrite, [&](SqliteConnection& connection) -> absl::Status {
        // Checked in the deleting transaction, so a job created meanwhile is
        // either seen here or finds no study to create trials in.
        VERNIER_ASSIGN_OR_RETURN(std::vector<v1::Job> unfinished,
                                 ReadJobsInStates(connection, kUnfinishedJobStates));
        VERNIER_RETURN_IF_ERROR(CheckNoUnfinishedJobRuns(study_name, unfinished));
        // Trials and their measurements go by ON DELETE CASCADE.
        VERNIER_ASSIGN_OR_RETURN(SqliteStatement remove,
                                 connection.Prepare("DELETE FROM studies WHERE name = ?"));
        VERNIER_RETURN_IF_ERROR(remove.BindText(1, study_name).Run());
        return connection.Changes() == 0 ? StudyNotFound(study_name) : absl::OkStatus();
      }));
  spdlog::info("deleted study {} with its trials from SQLite store {}", study_name, path_);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<v1::Trial>> SqliteStorage::CreateTrials(
    std::string_view study_name, std::span<const v1::Trial> trials) {
  std::vector<v1::Trial> created;
  VERNIER_RETURN_IF_ERROR(
      RunInTransaction(TransactionKind::kWrite, [&](SqliteConnection& connection) -> absl::Status {
        created.clear();
        VERNIER_ASSIGN_OR_RETURN(const v1::Study study, ReadStudy(connection, study_name));
        VERNIER_ASSIGN_OR_RETURN(const int64_t largest_id, LargestTrialId(connection, study_name));
        int64_t next_id = largest_id + 1;
        for (const v1::Trial& requested : trials) {
          v1::Trial trial = NewTrialRow(requested, study_name, next_id++);
          VERNIER_RETURN_IF_ERROR(InsertTrialRow(connection, trial, study.spec()));
          created.push_back(std::move(trial));
        }
        return absl::OkStatus();
      }));
  return created;
}

absl::StatusOr<v1::Trial> SqliteStorage::GetTrial(std::string_view study_name, int64_t trial_id,
                                                  bool include_measurements) {
  v1::Trial trial;
  VERNIER_RETURN_IF_ERROR(
      RunInTransaction(TransactionKind::kRead, [&](SqliteConnection& connection) -> absl::Status {
        VERNIER_ASSIGN_OR_RETURN(trial, ReadTrial(connection, study_name, trial_id));
        if (include_measurements) return ReadMeasurements(connection, trial);
        return absl::OkStatus();
      }));
  return trial;
}

namespace {

// The rows of one ListTrials page (RowLimit: one more than the page) with
// `columns`, in id order.
absl::StatusOr<SqliteStatement> SelectTrialPage(SqliteConnection& connection,
                                                std::string_view study_name,
                                                const TrialQuery& query, int64_t after_id,
                                                std::string_view columns) {
  std::string sql = absl::StrCat("SELECT ", text::AbslView(columns),
                                 " FROM trials WHERE study_name = ? AND id > ?");
  if (!query.states.empty()) sql += absl::StrCat(" AND state", InList(query.states.size()));
  sql += " ORDER BY id LIMIT ?";
  VERNIER_ASSIGN_OR_RETURN(SqliteStatement select, connection.Prepare(sql));
  select.BindText(1, study_name).BindInt64(2, after_id);
  int index = 3;
  for (const v1::Trial::State state : query.states) select.BindInt64(index++, state);
  select.BindInt64(index, RowLimit(query.page_size));
  return select;
}

}  // namespace

absl::StatusOr<Page<v1::Trial>> SqliteStorage::ListTrials(std::string_view study_name,
                                                          const TrialQuery& query) {
  VERNIER_ASSIGN_OR_RETURN(const int64_t after_id, TrialsAfter(query));
  Page<v1::Trial> page;
  bool more_pages = false;
  VERNIER_RETURN_IF_ERROR(
      RunInTransaction(TransactionKind::kRead, [&](SqliteConnection& connection) -> absl::Status {
        VERNIER_RETURN_IF_ERROR(RequireStudy(connection, study_name));
        {
          VERNIER_ASSIGN_OR_RETURN(
              SqliteStatement select,
              SelectTrialPage(connection, study_name, query, after_id, "body"));
          VERNIER_ASSIGN_OR_RETURN(
              page.items,
              ReadBodies<v1::Trial>(
                  select, 0, absl::StrCat("trial of study \"", text::AbslView(study_name), "\"")));
        }
        more_pages = TrimToPage(page.items, query.page_size);
        if (query.include_measurements) {
          for (v1::Trial& trial : page.items) {
            VERNIER_RETURN_IF_ERROR(ReadMeasurements(connection, trial));
          }
        }
        return absl::OkStatus();
      }));
  if (more_pages) page.next_page_token = EncodeTrialPageToken(page.items.back().id());
  return page;
}

absl::StatusOr<Page<SerializedTrial>> SqliteStorage::ListTrialBodies(std::string_view study_name,
                                                                     const TrialQuery& query) {
  // Measurements live in rows of their own: such a page is put together.
  if (query.include_measurements) {
    VERNIER_ASSIGN_OR_RETURN(const Page<v1::Trial> page, ListTrials(study_name, query));
    return SerializeTrials(page);
  }
  VERNIER_ASSIGN_OR_RETURN(const int64_t after_id, TrialsAfter(query));
  Page<SerializedTrial> page;
  VERNIER_RETURN_IF_ERROR(
      RunInTransaction(TransactionKind::kRead, [&](SqliteConnection& connection) -> absl::Status {
        page.items.clear();
        VERNIER_RETURN_IF_ERROR(RequireStudy(connection, study_name));
        VERNIER_ASSIGN_OR_RETURN(
            SqliteStatement select,
            SelectTrialPage(connection, study_name, query, after_id, "id, body"));
        return AppendTrialBodies(select, page.items);
      }));
  VERNIER_RETURN_IF_ERROR(FinishTrialBodyPage(study_name, page, query.page_size));
  return page;
}

absl::StatusOr<TrialChanges> SqliteStorage::ListTrialChanges(std::string_view study_name,
                                                             std::string_view since) {
  int64_t since_revision = -1;
  if (!since.empty() &&
      (!absl::SimpleAtoi(text::AbslView(since), &since_revision) || since_revision < 0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "listing the trials of study \"", text::AbslView(study_name), "\" written since \"",
        text::AbslView(since), "\": not a horizon of this store's"));
  }
  TrialChanges changes;
  VERNIER_RETURN_IF_ERROR(
      RunInTransaction(TransactionKind::kRead, [&](SqliteConnection& connection) -> absl::Status {
        changes.trials.clear();
        VERNIER_RETURN_IF_ERROR(RequireStudy(connection, study_name));
        // The horizon first, in the same snapshot: a later write takes a
        // larger revision (writers take turns), so the next listing has it.
        VERNIER_ASSIGN_OR_RETURN(
            SqliteStatement largest,
            connection.Prepare(
                "SELECT COALESCE(MAX(revision), 0) FROM trials WHERE study_name = ?"));
        largest.BindText(1, study_name);
        VERNIER_ASSIGN_OR_RETURN(const bool has_largest, largest.Step());
        changes.horizon = absl::StrCat(has_largest ? largest.ColumnInt64(0) : 0);
        // Every trial by its key; those since a horizon by the revision's
        // index (few), then ordered.
        VERNIER_ASSIGN_OR_RETURN(
            SqliteStatement select,
            connection.Prepare(since_revision < 0
                                   ? "SELECT id, body FROM trials WHERE study_name = ? ORDER BY id"
                                   : "SELECT id, body FROM trials INDEXED BY trials_by_revision "
                                     "WHERE study_name = ? AND revision > ? ORDER BY id"));
        select.BindText(1, study_name);
        if (since_revision >= 0) select.BindInt64(2, since_revision);
        return AppendTrialBodies(select, changes.trials);
      }));
  VERNIER_RETURN_IF_ERROR(CheckTrialBodies(study_name, changes.trials));
  return changes;
}

absl::StatusOr<std::vector<v1::Trial>> SqliteStorage::ListBestTrials(std::string_view study_name,
                                                                     int limit) {
  VERNIER_RETURN_IF_ERROR(CheckLimit(limit));
  std::vector<v1::Trial> best;
  VERNIER_RETURN_IF_ERROR(
      RunInTransaction(TransactionKind::kRead, [&](SqliteConnection& connection) -> absl::Status {
        VERNIER_RETURN_IF_ERROR(RequireStudy(connection, study_name));
        VERNIER_ASSIGN_OR_RETURN(SqliteStatement select,
                                 connection.Prepare("SELECT body FROM trials "
                                                    "WHERE study_name = ? AND rank_key IS NOT NULL "
                                                    "ORDER BY rank_key, id LIMIT ?"));
        select.BindText(1, study_name).BindInt64(2, limit == 0 ? RowLimit(0) : limit);
        VERNIER_ASSIGN_OR_RETURN(
            best,
            ReadBodies<v1::Trial>(
                select, 0, absl::StrCat("trial of study \"", text::AbslView(study_name), "\"")));
        return absl::OkStatus();
      }));
  return best;
}

absl::StatusOr<std::map<v1::Trial::State, int64_t>> SqliteStorage::CountTrials(
    std::string_view study_name) {
  std::map<v1::Trial::State, int64_t> counts;
  VERNIER_RETURN_IF_ERROR(
      RunInTransaction(TransactionKind::kRead, [&](SqliteConnection& connection) -> absl::Status {
        counts.clear();
        VERNIER_RETURN_IF_ERROR(RequireStudy(connection, study_name));
        VERNIER_ASSIGN_OR_RETURN(
            SqliteStatement select,
            connection.Prepare(
                "SELECT state, COUNT(*) FROM trials WHERE study_name = ? GROUP BY state"));
        select.BindText(1, study_name);
        for (;;) {
          VERNIER_ASSIGN_OR_RETURN(const bool has_row, select.Step());
          if (!has_row) return absl::OkStatus();
          counts[static_cast<v1::Trial::State>(select.ColumnInt64(0))] = select.ColumnInt64(1);
        }
      }));
  return counts;
}

absl::StatusOr<v1::Trial> SqliteStorage::UpdateTrialInStudy(std::string_view study_name,
                                                            int64_t trial_id,
                                                            const TrialInStudyMutator& mutate) {
  v1::Trial trial;
  VERNIER_RETURN_IF_ERROR(
      RunInTransaction(TransactionKind::kWrite, [&](SqliteConnection& connection) -> absl::Status {
        VERNIER_ASSIGN_OR_RETURN(const v1::Trial stored,
                                 ReadTrial(connection, study_name, trial_id));
        VERNIER_ASSIGN_OR_RETURN(const v1::Study study, ReadStudy(connection, study_name));
        trial = stored;
        if (mutate) VERNIER_RETURN_IF_ERROR(mutate(trial, study));
        KeepStoreOwnedFields(stored, trial);
        std::optional<double> rank_key;
        if (trial.has_final_measurement()) rank_key = RankKey(trial, study.spec());
        return UpdateTrialRow(connection, trial, rank_key);
      }));
  return trial;
}

namespace {

// AddMeasurements' work inside a write transaction: returns the trial after
// the append, or why nothing may be appended.
absl::StatusOr<v1::Trial> AppendToTrial(SqliteConnection& connection, std::string_view study_name,
                                        int64_t trial_id,
                                        std::span<const v1::Measurement> measurements,
                                        std::span<const v1::Trial::State> accepting_states) {
  VERNIER_ASSIGN_OR_RETURN(v1::Trial trial, ReadTrial(connection, study_name, trial_id));
  if (!AcceptsMeasurements(trial.state(), accepting_states)) {
    return NotAcceptingMeasurements(study_name, trial_id, trial.state(), accepting_states);
  }
  int64_t count = trial.measurement_count();
  const v1::Measurement* latest = nullptr;
  for (const v1::Measurement& measurement : measurements) {
    if (measurement.sequence_number() > 0) {
      // Also catches a number repeated within this batch: the earlier copy
      // is already inserted in this transaction.
      VERNIER_ASSIGN_OR_RETURN(
          const bool stored,
          SequenceNumberStored(connection, study_name, trial_id, measurement.sequence_number()));
      if (stored) continue;
    }
    VERNIER_RETURN_IF_ERROR(InsertMeasurementRow(connection, study_name, trial_id, count,
                                                 measurement.sequence_number(), measurement.step(),
                                                 SerializeBody(measurement)));
    ++count;
    latest = &measurement;
  }
  if (latest == nullptr) return trial;
  trial.set_measurement_count(count);
  *trial.mutable_latest_measurement() = *latest;
  VERNIER_RETURN_IF_ERROR(UpdateTrialBody(connection, trial));
  return trial;
}

}  // namespace

absl::StatusOr<v1::Trial> SqliteStorage::AddMeasurements(
    std::string_view study_name, int64_t trial_id, std::span<const v1::Measurement> measurements,
    std::span<const v1::Trial::State> accepting_states) {
  if (measurement_commits_.Takes(measurements)) {
    return measurement_commits_.Write({study_name, trial_id, measurements, accepting_states});
  }
  return AppendInTransaction(study_name, trial_id, measurements, accepting_states);
}

absl::StatusOr<v1::Trial> SqliteStorage::AppendInTransaction(
    std::string_view study_name, int64_t trial_id, std::span<const v1::Measurement> measurements,
    std::span<const v1::Trial::State> accepting_states) {
  v1::Trial trial;
  VERNIER_RETURN_IF_ERROR(
      RunInTransaction(TransactionKind::kWrite, [&](SqliteConnection& connection) -> absl::Status {
        VERNIER_ASSIGN_OR_RETURN(
            trial, AppendToTrial(connection, study_name, trial_id, measurements, accepting_states));
        return absl::OkStatus();
      }));
  return trial;
}

void SqliteStorage::AddMeasurementsAsync(std::string_view study_name, int64_t trial_id,
                                         std::span<const v1::Measurement> measurements,
                                         std::span<const v1::Trial::State> accepting_states,
                                         MeasurementDone done) {
  measurement_commits_.SubmitOrAdd(*this, study_name, trial_id, measurements, accepting_states,
                                   std::move(done));
}

std::vector<absl::StatusOr<v1::Trial>> SqliteStorage::AppendMeasurementBatch(
    std::span<const MeasurementAppend* const> batch) {
  std::vector<absl::StatusOr<v1::Trial>> results;
  const absl::Status status =
      RunInTransaction(TransactionKind::kWrite, [&](SqliteConnection& connection) -> absl::Status {
        results.clear();
        for (const MeasurementAppend* append : batch) {
          VERNIER_RETURN_IF_ERROR(connection.Execute("SAVEPOINT measurement"));
          absl::StatusOr<v1::Trial> trial =
              AppendToTrial(connection, append->study_name, append->trial_id, append->measurements,
                            append->accepting_states);
          if (!trial.ok()) {
            VERNIER_RETURN_IF_ERROR(connection.Execute("ROLLBACK TO measurement"));
          }
          VERNIER_RETURN_IF_ERROR(connection.Execute("RELEASE measurement"));
          results.push_back(std::move(trial));
        }
        return absl::OkStatus();
      });
  if (status.ok()) return results;
  spdlog::warn("SQLite store {}: a batch of {} measurements failed ({}); adding each alone", path_,
               batch.size(), status.ToString());
  results.clear();
  for (const MeasurementAppend* append : batch) {
    results.push_back(AppendInTransaction(append->study_name, append->trial_id,
                                          append->measurements, append->accepting_states));
  }
  return results;
}

absl::StatusOr<v1::Job> SqliteStorage::CreateJob(const v1::Job& job, const v1::Study& study) {
  VERNIER_ASSIGN_OR_RETURN(const v1::Job stored, JobToCreate(job, study));
  VERNIER_RETURN_IF_ERROR(
      RunInTransaction(TransactionKind::kWrite, [&](SqliteConnection& connection) -> absl::Status {
        VERNIER_ASSIGN_OR_RETURN(const bool job_exists, JobExists(connection, stored.job_id()));
        if (job_exists) {
          return absl::AlreadyExistsError(
              absl::StrCat("job \"", stored.job_id(), "\" already exists"));
        }
        VERNIER_ASSIGN_OR_RETURN(const bool study_exists, StudyExists(connection, study.name()));
        if (study_exists) {
          return absl::AlreadyExistsError(absl::StrCat("study \"", study.name(),
                                                       "\" already exists, so job \"",
                                                       stored.job_id(), "\" cannot use it"));
        }
        VERNIER_RETURN_IF_ERROR(InsertStudy(connection, study));
        VERNIER_ASSIGN_OR_RETURN(
            SqliteStatement insert,
            connection.Prepare("INSERT INTO jobs (job_id, state, create_time_micros, body) "
                               "VALUES (?, ?, ?, ?)"));
        return insert.BindText(1, stored.job_id())
            .BindInt64(2, stored.state())
            .BindInt64(3, ToMicros(stored.create_time()))
            .BindBlob(4, SerializeBody(stored))
            .Run();
      }));
  return stored;
}

absl::StatusOr<v1::Job> SqliteStorage::GetJob(std::string_view job_id) {
  v1::Job job;
  VERNIER_RETURN_IF_ERROR(
      RunInTransaction(TransactionKind::kRead, [&](SqliteConnection& connection) -> absl::Status {
        VERNIER_ASSIGN_OR_RETURN(job, ReadJob(connection, job_id));
        return absl::OkStatus();
      }));
  return job;
}

absl::StatusOr<Page<v1::Job>> SqliteStorage::ListJobs(int page_size, std::string_view page_token) {
  VERNIER_ASSIGN_OR_RETURN(const std::optional<JobPageCursor> after,
                           JobsAfter(page_size, page_token));
  Page<v1::Job> page;
  VERNIER_RETURN_IF_ERROR(
      RunInTransaction(TransactionKind::kRead, [&](SqliteConnection& connection) -> absl::Status {
        if (!after.has_value()) {
          VERNIER_ASSIGN_OR_RETURN(
              SqliteStatement select,
              connection.Prepare("SELECT body FROM jobs "
                                 "ORDER BY create_time_micros DESC, job_id DESC LIMIT ?"));
          select.BindInt64(1, RowLimit(page_size));
          VERNIER_ASSIGN_OR_RETURN(page.items, ReadBodies<v1::Job>(select, 0, "job"));
          return absl::OkStatus();
        }
        VERNIER_ASSIGN_OR_RETURN(
            SqliteStatement select,
            connection.Prepare(
                "SELECT body FROM jobs "
                "WHERE create_time_micros < ? OR (create_time_micros = ? AND job_id < ?) "
                "ORDER BY create_time_micros DESC, job_id DESC LIMIT ?"));
        select.BindInt64(1, after->create_time_micros)
            .BindInt64(2, after->create_time_micros)
            .BindText(3, after->job_id)
            .BindInt64(4, RowLimit(page_size));
        VERNIER_ASSIGN_OR_RETURN(page.items, ReadBodies<v1::Job>(select, 0, "job"));
        return absl::OkStatus();
      }));
  FinishJobPage(page, page_size);
  return page;
}

absl::StatusOr<std::vector<v1::Job>> SqliteStorage::ListJobsInStates(
    std::span<const v1::Job::State> states) {
  std::vector<v1::Job> jobs;
  VERNIER_RETURN_IF_ERROR(
      RunInTransaction(TransactionKind::kRead, [&](SqliteConnection& connection) -> absl::Status {
        VERNIER_ASSIGN_OR_RETURN(jobs, ReadJobsInStates(connection, states));
        return absl::OkStatus();
      }));
  return jobs;
}

absl::StatusOr<v1::Job> SqliteStorage::UpdateJob(std::string_view job_id,
                                                 const JobMutator& mutate) {
  v1::Job job;
  VERNIER_RETURN_IF_ERROR(
      RunInTransaction(TransactionKind::kWrite, [&](SqliteConnection& connection) -> absl::Status {
        VERNIER_ASSIGN_OR_RETURN(job, ReadJob(connection, job_id));
        if (mutate) VERNIER_RETURN_IF_ERROR(mutate(job));
        job.set_job_id(std::string(job_id));
        VERNIER_ASSIGN_OR_RETURN(
            SqliteStatement update,
            connection.Prepare("UPDATE jobs SET state = ?, create_time_micros = ?, body = ? "
                               "WHERE job_id = ?"));
        return update.BindInt64(1, job.state())
            .BindInt64(2, ToMicros(job.create_time()))
            .BindBlob(3, SerializeBody(job))
            .BindText(4, job_id)
            .Run();
      }));
  return job;
}

absl::StatusOr<v1::Job> SqliteStorage::DeleteJob(std::string_view job_id) {
  v1::Job job;
  VERNIER_RETURN_IF_ERROR(
      RunInTransaction(TransactionKind::kWrite, [&](SqliteConnection& connection) -> absl::Status {
        VERNIER_ASSIGN_OR_RETURN(job, ReadJob(connection, job_id));
        VERNIER_RETURN_IF_ERROR(CheckJobDeletable(job));
        // Trial runs go with the job, trials and measurements with the
        // study, by ON DELETE CASCADE.
        for (const std::string_view sql :
             {"DELETE FROM jobs WHERE job_id = ?", "DELETE FROM job_leases WHERE job_id = ?",
              "DELETE FROM agent_contacts WHERE job_id = ?",
              "DELETE FROM replica_exits WHERE job_id = ?"}) {
          VERNIER_ASSIGN_OR_RETURN(SqliteStatement remove, connection.Prepare(sql));
          VERNIER_RETURN_IF_ERROR(remove.BindText(1, job_id).Run());
        }
        VERNIER_ASSIGN_OR_RETURN(SqliteStatement remove_study,
                                 connection.Prepare("DELETE FROM studies WHERE name = ?"));
        return remove_study.BindText(1, job.study_name()).Run();
      }));
  spdlog::info("job={} deleted with study {} and its trials from SQLite store {}", job_id,
               job.study_name(), path_);
  return job;
}

absl::Status SqliteStorage::PutTrialRun(std::string_view job_id, const v1::TrialRun& run) {
  return RunInTransaction(
      TransactionKind::kWrite, [&](SqliteConnection& connection) -> absl::Status {
        VERNIER_RETURN_IF_ERROR(RequireJob(connection, job_id));
        VERNIER_ASSIGN_OR_RETURN(
            SqliteStatement upsert,
            connection.Prepare(
                "INSERT INTO trial_runs (job_id, trial_id, body) VALUES (?, ?, ?) "
                "ON CONFLICT (job_id, trial_id) DO UPDATE SET body = excluded.body"));
        return upsert.BindText(1, job_id)
            .BindInt64(2, run.trial_id())
            .BindBlob(3, SerializeBody(run))
            .Run();
      });
}

absl::StatusOr<std::unique_ptr<StudyLock>> SqliteStorage::LockStudy(std::string_view study_name) {
  absl::StatusOr<std::unique_ptr<SqliteStudyLock>> lock =
      SqliteStudyLock::Acquire(path_ + "-study-locks", study_name, options_.study_lock_timeout);
  if (!lock.ok()) return lock.status();
  return std::unique_ptr<StudyLock>(*std::move(lock));
}

absl::StatusOr<std::vector<v1::TrialRun>> SqliteStorage::ListTrialRuns(std::string_view job_id) {
  return ReadTrialRuns(job_id, std::nullopt);
}

absl::StatusOr<std::vector<v1::TrialRun>> SqliteStorage::ListTrialRunsOf(
    std::string_view job_id, std::span<const int64_t> trial_ids) {
  return ReadTrialRuns(job_id, trial_ids);
}

absl::StatusOr<std::vector<v1::TrialRun>> SqliteStorage::ReadTrialRuns(
    std::string_view job_id, std::optional<std::span<const int64_t>> trial_ids) {
  std::string sql = "SELECT body FROM trial_runs WHERE job_id = ?";
  if (trial_ids.has_value()) sql += absl::StrCat(" AND trial_id", InList(trial_ids->size()));
  sql += " ORDER BY trial_id";
  std::vector<v1::TrialRun> runs;
  VERNIER_RETURN_IF_ERROR(
      RunInTransaction(TransactionKind::kRead, [&](SqliteConnection& connection) -> absl::Status {
        VERNIER_RETURN_IF_ERROR(RequireJob(connection, job_id));
        VERNIER_ASSIGN_OR_RETURN(SqliteStatement select, connection.Prepare(sql));
        select.BindText(1, job_id);
        int index = 2;
        for (const int64_t trial_id : trial_ids.value_or(std::span<const int64_t>())) {
          select.BindInt64(index++, trial_id);
        }
        VERNIER_ASSIGN_OR_RETURN(
            runs,
            ReadBodies<v1::TrialRun>(
                select, 0, absl::StrCat("trial run of job \"", text::AbslView(job_id), "\"")));
        return absl::OkStatus();
      }));
  return runs;
}

// ---------------------------------------------------------------- API tokens

absl::Status SqliteStorage::CreateApiToken(std::string_view token_hash, const v1::ApiToken& token) {
  VERNIER_RETURN_IF_ERROR(CheckApiTokenToCreate(token_hash, token));
  return RunInTransaction(
      TransactionKind::kWrite, [&](SqliteConnection& connection) -> absl::Status {
        VERNIER_ASSIGN_OR_RETURN(
            SqliteStatement insert,
            connection.Prepare("INSERT INTO api_tokens (id, token_hash, create_time_micros, body) "
                               "VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING"));
        VERNIER_RETURN_IF_ERROR(insert.BindText(1, token.id())
                                    .BindText(2, token_hash)
                                    .BindInt64(3, ToMicros(token.create_time()))
                                    .BindBlob(4, SerializeBody(token))
                                    .Run());
        return connection.Changes() == 1 ? absl::OkStatus() : ApiTokenExists(token.id());
      });
}

absl::StatusOr<v1::ApiToken> SqliteStorage::FindApiToken(std::string_view token_hash) {
  v1::ApiToken token;
  VERNIER_RETURN_IF_ERROR(
      RunInTransaction(TransactionKind::kRead, [&](SqliteConnection& connection) -> absl::Status {
        VERNIER_ASSIGN_OR_RETURN(
            SqliteStatement select,
            connection.Prepare("SELECT body FROM api_tokens WHERE token_hash = ?"));
        select.BindText(1, token_hash);
        VERNIER_ASSIGN_OR_RETURN(const bool found, select.Step());
        if (!found) return NoTokenWithThatHash();
        VERNIER_ASSIGN_OR_RETURN(token, ParseBody<v1::ApiToken>(select.ColumnBlob(0), "API token"));
        return absl::OkStatus();
      }));
  return token;
}

absl::StatusOr<std::vector<v1::ApiToken>> SqliteStorage::ListApiTokens() {
  std::vector<v1::ApiToken> tokens;
  VERNIER_RETURN_IF_ERROR(
      RunInTransaction(TransactionKind::kRead, [&](SqliteConnection& connection) -> absl::Status {
        VERNIER_ASSIGN_OR_RETURN(
            SqliteStatement select,
            connection.Prepare("SELECT body FROM api_tokens ORDER BY create_time_micros, id"));
        VERNIER_ASSIGN_OR_RETURN(tokens, ReadBodies<v1::ApiToken>(select, 0, "API token"));
        return absl::OkStatus();
      }));
  return tokens;
}

absl::StatusOr<v1::ApiToken> SqliteStorage::UpdateApiToken(std::string_view token_id,
                                                           const ApiTokenMutator& mutate) {
  v1::ApiToken token;
  VERNIER_RETURN_IF_ERROR(
      RunInTransaction(TransactionKind::kWrite, [&](SqliteConnection& connection) -> absl::Status {
        VERNIER_ASSIGN_OR_RETURN(SqliteStatement select,
                                 connection.Prepare("SELECT body FROM api_tokens WHERE id = ?"));
        select.BindText(1, token_id);
        VERNIER_ASSIGN_OR_RETURN(const bool found, select.Step());
        if (!found) return ApiTokenNotFound(token_id);
        VERNIER_ASSIGN_OR_RETURN(token, ParseBody<v1::ApiToken>(select.ColumnBlob(0), "API token"));
        if (mutate) VERNIER_RETURN_IF_ERROR(mutate(token));
        token.set_id(std::string(token_id));
        VERNIER_ASSIGN_OR_RETURN(SqliteStatement update,
                                 connection.Prepare("UPDATE api_tokens SET body = ? WHERE id = ?"));
        return update.BindBlob(1, SerializeBody(token)).BindText(2, token_id).Run();
      }));
  return token;
}

absl::Status SqliteStorage::DeleteApiToken(std::string_view token_id) {
  return RunInTransaction(
      TransactionKind::kWrite, [&](SqliteConnection& connection) -> absl::Status {
        VERNIER_ASSIGN_OR_RETURN(SqliteStatement remove,
                                 connection.Prepare("DELETE FROM api_tokens WHERE id = ?"));
        VERNIER_RETURN_IF_ERROR(remove.BindText(1, token_id).Run());
        return connection.Changes() == 1 ? absl::OkStatus() : ApiTokenNotFound(token_id);
      });
}

// ---------------------------------------------------------------- audit log

namespace {

constexpr char kAuditColumns[] = "sequence, time_micros, user_name, resource, body, hash";

absl::StatusOr<std::vector<StoredAuditRow>> ReadAuditRows(SqliteStatement& select) {
  std::vector<StoredAuditRow> rows;
  while (true) {
    VERNIER_ASSIGN_OR_RETURN(const bool found, select.Step());
    if (!found) break;
    rows.push_back(StoredAuditRow{select.ColumnInt64(0), select.ColumnInt64(1),
                                  select.ColumnText(2), select.ColumnText(3),
                                  std::string(select.ColumnBlob(4)), select.ColumnText(5)});
  }
  return rows;
}

}  // namespace

absl::Status SqliteStorage::AppendAuditEntries(std::span<const v1::AuditEntry> entries) {
  if (entries.empty()) return absl::OkStatus();
  // A write transaction holds SQLite's one write lock: appends from every
  // process sharing the file are serialised, so the chain stays one line.
  return RunInTransaction(
      TransactionKind::kWrite, [&](SqliteConnection& connection) -> absl::Status {
        VERNIER_ASSIGN_OR_RETURN(
            SqliteStatement last,
            connection.Prepare(absl::StrCat("SELECT ", kAuditColumns,
                                            " FROM audit_log ORDER BY sequence DESC LIMIT 1")));
        VERNIER_ASSIGN_OR_RETURN(std::vector<StoredAuditRow> head, ReadAuditRows(last));
        std::optional<StoredAuditRow> previous;
        if (!head.empty()) previous = std::move(head.front());
        for (const v1::AuditEntry& entry : entries) {
          StoredAuditRow row = ChainAuditRow(previous.has_value() ? &*previous : nullptr, entry);
          VERNIER_ASSIGN_OR_RETURN(
              SqliteStatement insert,
              connection.Prepare(absl::StrCat("INSERT INTO audit_log (", kAuditColumns,
                                              ") VALUES (?, ?, ?, ?, ?, ?)")));
          VERNIER_RETURN_IF_ERROR(insert.BindInt64(1, row.sequence)
                                      .BindInt64(2, row.time_micros)
                                      .BindText(3, row.user)
                                      .BindText(4, row.resource)
                                      .BindBlob(5, row.body)
                                      .BindText(6, row.hash)
                                      .Run());
          previous = std::move(row);
        }
        return absl::OkStatus();
      });
}

absl::StatusOr<std::vector<v1::AuditEntry>> SqliteStorage::ListAuditEntries(
    const AuditQuery& query) {
  std::vector<StoredAuditRow> rows;
  VERNIER_RETURN_IF_ERROR(
      RunInTransaction(TransactionKind::kRead, [&](SqliteConnection& connection) -> absl::Status {
        VERNIER_ASSIGN_OR_RETURN(
            SqliteStatement select,
            connection.Prepare(absl::StrCat(
                "SELECT ", kAuditColumns,
                " FROM audit_log WHERE (?1 = '' OR user_name = ?1) AND (?2 = '' OR resource = ?2)"
                " AND time_micros >= ?3 ORDER BY sequence DESC LIMIT ?4")));
        select.BindText(1, query.user)
            .BindText(2, query.resource)
            .BindInt64(3, query.since.has_value() ? absl::ToUnixMicros(*query.since)
                                                  : std::numeric_limits<int64_t>::min())
            .BindInt64(4, query.limit > 0 ? query.limit : -1);
        VERNIER_ASSIGN_OR_RETURN(rows, ReadAuditRows(select));
        return absl::OkStatus();
      }));
  std::vector<v1::AuditEntry> entries;
  for (auto row = rows.rbegin(); row != rows.rend(); ++row) {
    VERNIER_ASSIGN_OR_RETURN(entries.emplace_back(), AuditEntryOfRow(*row));
  }
  return entries;
}

absl::StatusOr<std::vector<StoredAuditRow>> SqliteStorage::ReadAuditChain() {
  std::vector<StoredAuditRow> rows;
  VERNIER_RETURN_IF_ERROR(
      RunInTransaction(TransactionKind::kRead, [&](SqliteConnection& connection) -> absl::Status {
        VERNIER_ASSIGN_OR_RETURN(SqliteStatement select, connection.Prepare(absl::StrCat(
                                                             "SELECT ", kAuditColumns,
                                                             " FROM audit_log ORDER BY sequence")));
        VERNIER_ASSIGN_OR_RETURN(rows, ReadAuditRows(select));
        return absl::OkStatus();
      }));
  return rows;
}

// ---------------------------------------------------------------- job coordination

absl::StatusOr<std::vector<JobLease>> SqliteStorage::AcquireJobLeases(
    std::string_view holder, std::span<const std::string> job_ids, absl::Duration ttl) {
  std::vector<JobLease> leases;
  VERNIER_RETURN_IF_ERROR(
      RunInTransaction(TransactionKind::kWrite, [&](SqliteConnection& connection) -> absl::Status {
        leases.clear();
        const int64_t now = NowMicros();
        for (const std::string& job_id : job_ids) {
          VERNIER_ASSIGN_OR_RETURN(
              SqliteStatement upsert,
              connection.Prepare(
                  "INSERT INTO job_leases (job_id, holder, token, expires_micros) "
                  "VALUES (?, ?, 1, ?) "
                  "ON CONFLICT (job_id) DO UPDATE SET holder = excluded.holder,"
                  " token = CASE WHEN job_leases.holder = excluded.holder THEN job_leases.token"
                  " ELSE job_leases.token + 1 END,"
                  " expires_micros = excluded.expires_micros "
                  "WHERE job_leases.holder = excluded.holder OR job_leases.expires_micros <= ? "
                  "RETURNING token"));
          upsert.BindText(1, job_id)
              .BindText(2, holder)
              .BindInt64(3, now + absl::ToInt64Microseconds(ttl))
              .BindInt64(4, now);
          VERNIER_ASSIGN_OR_RETURN(const bool taken, upsert.Step());
          if (taken) leases.push_back({job_id, upsert.ColumnInt64(0)});
          // RETURNING rows are produced before the statement completes.
          while (taken) {
            VERNIER_ASSIGN_OR_RETURN(const bool more, upsert.Step());
            if (!more) break;
          }
        }
        return absl::OkStatus();
      }));
  std::sort(leases.begin(), leases.end(),
            [](const JobLease& a, const JobLease& b) { return a.job_id < b.job_id; });
  return leases;
}

absl::Status SqliteStorage::ReleaseJobLeases(std::string_view holder,
                                             std::span<const std::string> job_ids) {
  return RunInTransaction(
      TransactionKind::kWrite, [&](SqliteConnection& connection) -> absl::Status {
        for (const std::string& job_id : job_ids) {
          VERNIER_ASSIGN_OR_RETURN(
              SqliteStatement update,
              connection.Prepare(
                  "UPDATE job_leases SET expires_micros = ? WHERE holder = ? AND job_id = ?"));
          VERNIER_RETURN_IF_ERROR(
              update.BindInt64(1, NowMicros()).BindText(2, holder).BindText(3, job_id).Run());
        }
        return absl::OkStatus();
      });
}

absl::Status SqliteStorage::RecordServer(std::string_view server_id, std::string_view agent_address,
                                         absl::Duration ttl) {
  return RunInTransaction(
      TransactionKind::kWrite, [&](SqliteConnection& connection) -> absl::Status {
        const int64_t now = NowMicros();
        VERNIER_ASSIGN_OR_RETURN(
            SqliteStatement upsert,
            connection.Prepare(
                "INSERT INTO servers (server_id, agent_address, expires_micros) VALUES (?, ?, ?) "
                "ON CONFLICT (server_id) DO UPDATE SET agent_address = excluded.agent_address,"
                " expires_micros = excluded.expires_micros"));
        VERNIER_RETURN_IF_ERROR(upsert.BindText(1, server_id)
                                    .BindText(2, agent_address)
                                    .BindInt64(3, now + absl::ToInt64Microseconds(ttl))
                                    .Run());
        VERNIER_ASSIGN_OR_RETURN(
            SqliteStatement forget,
            connection.Prepare("DELETE FROM servers WHERE expires_micros < ?"));
        return forget.BindInt64(1, now - absl::ToInt64Microseconds(absl::Hours(24))).Run();
      });
}

absl::StatusOr<std::vector<std::string>> SqliteStorage::ListLiveServerAddresses() {
  std::vector<std::string> addresses;
  VERNIER_RETURN_IF_ERROR(
      RunInTransaction(TransactionKind::kRead, [&](SqliteConnection& connection) -> absl::Status {
        addresses.clear();
        VERNIER_ASSIGN_OR_RETURN(SqliteStatement select,
                                 connection.Prepare("SELECT agent_address FROM servers "
                                                    "WHERE expires_micros > ? ORDER BY server_id"));
        select.BindInt64(1, NowMicros());
        for (;;) {
          VERNIER_ASSIGN_OR_RETURN(const bool row, select.Step());
          if (!row) break;
          addresses.push_back(select.ColumnText(0));
        }
        return absl::OkStatus();
      }));
  return addresses;
}

absl::Status SqliteStorage::RecordAgentContact(std::string_view job_id, int64_t trial_id,
                                               std::string_view replica) {
  return RunInTransaction(
      TransactionKind::kWrite, [&](SqliteConnection& connection) -> absl::Status {
        VERNIER_ASSIGN_OR_RETURN(
            SqliteStatement upsert,
            connection.Prepare(
                "INSERT INTO agent_contacts (job_id, trial_id, replica, heard_micros) "
                "VALUES (?, ?, ?, ?) ON CONFLICT (job_id, trial_id, replica) "
                "DO UPDATE SET heard_micros = excluded.heard_micros"));
        return upsert.BindText(1, job_id)
            .BindInt64(2, trial_id)
            .BindText(3, replica)
            .BindInt64(4, NowMicros())
            .Run();
      });
}

absl::StatusOr<std::optional<absl::Duration>> SqliteStorage::AgentContactAge(
    std::string_view job_id, int64_t trial_id, std::string_view replica) {
  std::optional<absl::Duration> age;
  VERNIER_RETURN_IF_ERROR(
      RunInTransaction(TransactionKind::kRead, [&](SqliteConnection& connection) -> absl::Status {
        VERNIER_ASSIGN_OR_RETURN(
            SqliteStatement select,
            connection.Prepare("SELECT heard_micros FROM agent_contacts "
                               "WHERE job_id = ? AND trial_id = ? AND replica = ?"));
        select.BindText(1, job_id).BindInt64(2, trial_id).BindText(3, replica);
        VERNIER_ASSIGN_OR_RETURN(const bool found, select.Step());
        age.reset();
        if (found) age = absl::Microseconds(NowMicros() - select.ColumnInt64(0));
        return absl::OkStatus();
      }));
  return age;
}

absl::Status SqliteStorage::QueueReplicaExit(std::string_view job_id,
                                             const v1::ReportExitRequest& report) {
  return RunInTransaction(
      TransactionKind::kWrite, [&](SqliteConnection& connection) -> absl::Status {
        VERNIER_ASSIGN_OR_RETURN(
            SqliteStatement insert,
            connection.Prepare("INSERT INTO replica_exits (job_id, body) VALUES (?, ?)"));
        return insert.BindText(1, job_id).BindBlob(2, SerializeBody(report)).Run();
      });
}

absl::StatusOr<std::vector<v1::ReportExitRequest>> SqliteStorage::TakeReplicaExits(
    std::string_view job_id) {
  std::vector<v1::ReportExitRequest> reports;
  VERNIER_RETURN_IF_ERROR(
      RunInTransaction(TransactionKind::kWrite, [&](SqliteConnection& connection) -> absl::Status {
        reports.clear();
        VERNIER_ASSIGN_OR_RETURN(
            SqliteStatement select,
            connection.Prepare("SELECT body FROM replica_exits WHERE job_id = ? ORDER BY id"));
        select.BindText(1, job_id);
        VERNIER_ASSIGN_OR_RETURN(
            reports,
            ReadBodies<v1::ReportExitRequest>(
                select, 0, absl::StrCat("exit report of job \"", text::AbslView(job_id), "\"")));
        VERNIER_ASSIGN_OR_RETURN(SqliteStatement remove,
                                 connection.Prepare("DELETE FROM replica_exits WHERE job_id = ?"));
        return remove.BindText(1, job_id).Run();
      }));
  return reports;
}

}  // namespace vernier::storage
