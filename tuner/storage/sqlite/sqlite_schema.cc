#include "tuner/storage/sqlite/sqlite_schema.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "spdlog/spdlog.h"
#include "tuner/storage/stored_rows.h"

namespace vernier::storage {
namespace {

// The logical design is meant for PostgreSQL as much as for SQLite: plain
// column types, serialized vernier.v1 messages in `body` (BYTEA there), the
// columns queries filter or order on beside them, and standard constraints.
// Name order is byte order (SQLite's BINARY collation; COLLATE "C" there).
// A trial row keeps latest_measurement and measurement_count in its body, so
// reading trials never touches `measurements`.
// Released: never edit a version, append a new one.
constexpr std::string_view kVersion1 = R"sql(
CREATE TABLE studies (
  name TEXT NOT NULL PRIMARY KEY,
  state INTEGER NOT NULL,
  create_time_micros BIGINT NOT NULL,
  body BLOB NOT NULL
);

CREATE TABLE trials (
  study_name TEXT NOT NULL REFERENCES studies (name) ON DELETE CASCADE,
  id BIGINT NOT NULL,
  state INTEGER NOT NULL,
  client_id TEXT NOT NULL,
  body BLOB NOT NULL,
  PRIMARY KEY (study_name, id)
);
CREATE INDEX trials_by_state ON trials (study_name, state);

CREATE TABLE measurements (
  study_name TEXT NOT NULL,
  trial_id BIGINT NOT NULL,
  ordinal BIGINT NOT NULL,
  sequence_number BIGINT NOT NULL,
  step BIGINT NOT NULL,
  body BLOB NOT NULL,
  PRIMARY KEY (study_name, trial_id, ordinal),
  FOREIGN KEY (study_name, trial_id) REFERENCES trials (study_name, id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX measurements_by_sequence_number
  ON measurements (study_name, trial_id, sequence_number) WHERE sequence_number > 0;

CREATE TABLE jobs (
  job_id TEXT NOT NULL PRIMARY KEY,
  state INTEGER NOT NULL,
  create_time_micros BIGINT NOT NULL,
  body BLOB NOT NULL
);
CREATE INDEX jobs_by_create_time ON jobs (create_time_micros, job_id);
CREATE INDEX jobs_by_state ON jobs (state);

CREATE TABLE trial_runs (
  job_id TEXT NOT NULL REFERENCES jobs (job_id) ON DELETE CASCADE,
  trial_id BIGINT NOT NULL,
  body BLOB NOT NULL,
  PRIMARY KEY (job_id, trial_id)
);
)sql";

// The leaderboard's column and index; SqliteDataMigrations fills the column
// for the trials that already ended.
constexpr std::string_view kVersion2 = R"sql(
ALTER TABLE trials ADD COLUMN rank_key REAL;
CREATE INDEX trials_by_rank ON trials (study_name, rank_key, id) WHERE rank_key IS NOT NULL;
)sql";

// Job leases and the rest of job_coordination.h, as on PostgreSQL (one
// server drives a SQLite store, SingleServerLock, but the controller works
// the same on both). Times are microseconds since the epoch.
constexpr std::string_view kVersion3 = R"sql(
CREATE TABLE job_leases (
  job_id TEXT NOT NULL PRIMARY KEY,
  holder TEXT NOT NULL,
  token BIGINT NOT NULL,
  expires_micros BIGINT NOT NULL
);
CREATE TABLE servers (
  server_id TEXT NOT NULL PRIMARY KEY,
  agent_address TEXT NOT NULL,
  expires_micros BIGINT NOT NULL
);
CREATE TABLE agent_contacts (
  job_id TEXT NOT NULL,
  trial_id BIGINT NOT NULL,
  replica TEXT NOT NULL,
  heard_micros BIGINT NOT NULL,
  PRIMARY KEY (job_id, trial_id, replica)
);
CREATE TABLE replica_exits (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  job_id TEXT NOT NULL,
  body BLOB NOT NULL
);
CREATE INDEX replica_exits_by_job ON replica_exits (job_id, id);
)sql";

// API tokens and agents' credentials (api_token_store.h): the SHA-256 of
// the token, never the token; the ApiToken in `body`.
constexpr std::string_view kVersion4 = R"sql(
CREATE TABLE api_tokens (
  id TEXT NOT NULL PRIMARY KEY,
  token_hash TEXT NOT NULL UNIQUE,
  create_time_micros BIGINT NOT NULL,
  body BLOB NOT NULL
);
)sql";

// The audit log (audit_log_store.h): append-only (the triggers refuse a
// change or a removal through SQLite) and hash-chained (audit_chain.h), so
// a change made around them shows in `vernier audit verify`.
constexpr std::string_view kVersion5 = R"sql(
CREATE TABLE audit_log (
  sequence INTEGER PRIMARY KEY,
  time_micros BIGINT NOT NULL,
  user_name TEXT NOT NULL,
  resource TEXT NOT NULL,
  body BLOB NOT NULL,
  hash TEXT NOT NULL
);
CREATE INDEX audit_log_by_time ON audit_log (time_micros);
CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
)sql";

// Each trial row records when it was last written (`revision`: one more
// than the largest of its study's rows when written; 0 for rows written
// before this version), so that ListTrialChanges reads the trials written
// since an earlier listing from an index instead of every trial of the
// study. A study's trials are removed only with the study, so its largest
// revision never goes back.
constexpr std::string_view kVersion6 = R"sql(
ALTER TABLE trials ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
CREATE INDEX trials_by_revision ON trials (study_name, revision);
)sql";

constexpr std::array<std::string_view, 6> kMigrations = {kVersion1, kVersion2, kVersion3,
                                                         kVersion4, kVersion5, kVersion6};

absl::Status BackfillRankKeys(SqliteConnection& connection) {
  struct Row {
    std::string study_name;
    int64_t id;
    std::optional<double> rank_key;
  };
  std::vector<Row> rows;
  {
    VERNIER_ASSIGN_OR_RETURN(
        SqliteStatement select,
        connection.Prepare("SELECT t.study_name, t.id, t.body, s.body FROM trials t "
                           "JOIN studies s ON s.name = t.study_name WHERE t.state IN (?, ?)"));
    select.BindInt64(1, v1::Trial::SUCCEEDED).BindInt64(2, v1::Trial::STOPPED_EARLY);
    for (;;) {
      VERNIER_ASSIGN_OR_RETURN(const bool has_row, select.Step());
      if (!has_row) break;
      const std::string study_name = select.ColumnText(0);
      const int64_t id = select.ColumnInt64(1);
      VERNIER_ASSIGN_OR_RETURN(
          const v1::Trial trial,
          ParseBody<v1::Trial>(select.ColumnBlob(2), DescribeTrial(study_name, id)));
      VERNIER_ASSIGN_OR_RETURN(
          const v1::Study study,
          ParseBody<v1::Study>(select.ColumnBlob(3), absl::StrCat("study \"", study_name, "\"")));
      rows.push_back({study_name, id, RankKey(trial, study.spec())});
    }
  }
  for (const Row& row : rows) {
    VERNIER_ASSIGN_OR_RETURN(
        SqliteStatement update,
        connection.Prepare("UPDATE trials SET rank_key = ? WHERE study_name = ? AND id = ?"));
    VERNIER_RETURN_IF_ERROR(update.BindOptionalDouble(1, row.rank_key)
                                .BindText(2, row.study_name)
                                .BindInt64(3, row.id)
                                .Run());
  }
  return absl::OkStatus();
}

absl::StatusOr<int> ReadVersion(SqliteConnection& connection) {
  absl::StatusOr<SqliteStatement> select =
      connection.Prepare("SELECT MAX(version) FROM schema_version");
  if (!select.ok()) return select.status();
  absl::StatusOr<bool> has_row = select->Step();
  if (!has_row.ok()) return has_row.status();
  // MAX over no rows is NULL, read as 0: a database Vernier has not set up.
  return *has_row ? static_cast<int>(select->ColumnInt64(0)) : 0;
}

absl::Status WriteVersion(SqliteConnection& connection, int version) {
  VERNIER_RETURN_IF_ERROR(connection.Execute("DELETE FROM schema_version"));
  absl::StatusOr<SqliteStatement> insert =
      connection.Prepare("INSERT INTO schema_version (version) VALUES (?)");
  if (!insert.ok()) return insert.status();
  return insert->BindInt64(1, version).Run();
}

absl::StatusOr<int> MigrateInTransaction(SqliteConnection& connection,
                                         std::span<const std::string_view> migrations,
                                         const SqliteDataMigration& data_migration) {
  VERNIER_RETURN_IF_ERROR(
      connection.Execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)"));
  absl::StatusOr<int> found = ReadVersion(connection);
  if (!found.ok()) return found.status();
  const int known = static_cast<int>(migrations.size());
  if (*found > known) {
    return absl::FailedPreconditionError(absl::StrCat(
        "SQLite database \"", connection.path(), "\" has schema version ", *found,
        ", newer than version ", known,
        ", the newest this Vernier knows; run a Vernier at least as new as the one that "
        "wrote it"));
  }
  for (int version = *found; version < known; ++version) {
    if (absl::Status status = connection.Execute(migrations[version]); !status.ok()) {
      return absl::InternalError(absl::StrCat("migrating SQLite database \"", connection.path(),
                                              "\" to schema version ", version + 1,
                                              " failed: ", status.message()));
    }
  }
  if (*found != known) {
    if (data_migration) {
      if (absl::Status status = data_migration(connection, *found); !status.ok()) {
        return absl::InternalError(absl::StrCat("migrating the rows of SQLite database \"",
                                                connection.path(), "\" from schema version ",
                                                *found, " failed: ", status.message()));
      }
    }
    VERNIER_RETURN_IF_ERROR(WriteVersion(connection, known));
  }
  return *found;
}

}  // namespace

std::span<const std::string_view> SqliteSchemaMigrations() { return kMigrations; }

absl::Status SqliteDataMigrations(SqliteConnection& connection, int from_version) {
  // A new database (version 0) has no rows to fill.
  if (from_version == 1) return BackfillRankKeys(connection);
  return absl::OkStatus();
}

absl::StatusOr<int> MigrateSqliteSchema(SqliteConnection& connection,
                                        std::span<const std::string_view> migrations,
                                        const SqliteDataMigration& data_migration) {
  // IMMEDIATE takes the write lock up front, so two processes opening a new
  // database at once migrate it once: the second waits and finds it current.
  VERNIER_RETURN_IF_ERROR(connection.Execute("BEGIN IMMEDIATE"));
  absl::StatusOr<int> previous = MigrateInTransaction(connection, migrations, data_migration);
  if (previous.ok()) {
    if (absl::Status status = connection.Execute("COMMIT"); !status.ok()) previous = status;
  }
  if (!previous.ok()) {
    if (connection.InTransaction()) connection.Execute("ROLLBACK").IgnoreError();
    return previous.status();
  }
  if (*previous != static_cast<int>(migrations.size())) {
    spdlog::info("migrated SQLite database {} from schema version {} to {}", connection.path(),
                 *previous, migrations.size());
  }
  return previous;
}

}  // namespace vernier::storage
