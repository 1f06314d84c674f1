#include "tuner/storage/postgres/postgres_schema.h"

#include <array>
#include <exception>
#include <string>

#include "absl/strings/str_cat.h"
#include "pqxx/transaction"
#include "spdlog/spdlog.h"
#include "text/absl_view.h"
#include "tuner/storage/postgres/postgres_error.h"

namespace vernier::storage {
namespace {

// The SQLite store's design (sqlite_schema.cc) in PostgreSQL's types:
// serialized vernier.v1 messages in `body`, the columns queries filter or
// order on beside them. Names compare byte by byte (COLLATE "C"), as in
// SQLite. A trial row keeps latest_measurement and measurement_count (in
// its body in version 1, in columns from version 2), so reading trials never
// touches `measurements`; `rank_key` orders the leaderboard (stored_rows.h).
constexpr std::string_view kVersion1 = R"sql(
CREATE TABLE studies (
  name TEXT COLLATE "C" NOT NULL PRIMARY KEY,
  state INTEGER NOT NULL,
  create_time_micros BIGINT NOT NULL,
  body BYTEA NOT NULL
);

CREATE TABLE trials (
  study_name TEXT COLLATE "C" NOT NULL REFERENCES studies (name) ON DELETE CASCADE,
  id BIGINT NOT NULL,
  state INTEGER NOT NULL,
  client_id TEXT NOT NULL,
  rank_key DOUBLE PRECISION,
  body BYTEA NOT NULL,
  PRIMARY KEY (study_name, id)
);
CREATE INDEX trials_by_state ON trials (study_name, state, id);
CREATE INDEX trials_by_rank ON trials (study_name, rank_key, id) WHERE rank_key IS NOT NULL;

CREATE TABLE measurements (
  study_name TEXT COLLATE "C" NOT NULL,
  trial_id BIGINT NOT NULL,
  ordinal BIGINT NOT NULL,
  sequence_number BIGINT NOT NULL,
  step BIGINT NOT NULL,
  body BYTEA NOT NULL,
  PRIMARY KEY (study_name, trial_id, ordinal),
  FOREIGN KEY (study_name, trial_id) REFERENCES trials (study_name, id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX measurements_by_sequence_number
  ON measurements (study_name, trial_id, sequence_number) WHERE sequence_number > 0;

CREATE TABLE jobs (
  job_id TEXT COLLATE "C" NOT NULL PRIMARY KEY,
  state INTEGER NOT NULL,
  create_time_micros BIGINT NOT NULL,
  body BYTEA NOT NULL
);
CREATE INDEX jobs_by_create_time ON jobs (create_time_micros, job_id);
CREATE INDEX jobs_by_state ON jobs (state);

CREATE TABLE trial_runs (
  job_id TEXT COLLATE "C" NOT NULL REFERENCES jobs (job_id) ON DELETE CASCADE,
  trial_id BIGINT NOT NULL,
  body BYTEA NOT NULL,
  PRIMARY KEY (job_id, trial_id)
);
)sql";

// A trial's measurement_count and latest_measurement move from its body to
// columns (authoritative from now on; the body's copies are ignored), so
// that one statement appends a measurement, checks the trial's state and
// updates both, without reading the body into the server first.
constexpr std::string_view kVersion2 = R"sql(
ALTER TABLE trials
  ADD COLUMN measurement_count BIGINT NOT NULL DEFAULT 0,
  ADD COLUMN latest_measurement BYTEA;
UPDATE trials
SET measurement_count = latest.ordinal + 1, latest_measurement = latest.body
FROM (SELECT DISTINCT ON (study_name, trial_id) study_name, trial_id, ordinal, body
      FROM measurements ORDER BY study_name, trial_id, ordinal DESC) AS latest
WHERE trials.study_name = latest.study_name AND trials.id = latest.trial_id;
)sql";

// What servers sharing the database need to share the work of running jobs
// (job_coordination.h): job leases with fencing tokens, the live servers,
// agents' contacts and exit reports heard by a server not driving the job.
constexpr std::string_view kVersion3 = R"sql(
CREATE TABLE job_leases (
  job_id TEXT COLLATE "C" PRIMARY KEY,
  holder TEXT NOT NULL,
  token BIGINT NOT NULL,
  expires_at TIMESTAMPTZ NOT NULL
);
CREATE TABLE servers (
  server_id TEXT COLLATE "C" PRIMARY KEY,
  agent_address TEXT NOT NULL,
  expires_at TIMESTAMPTZ NOT NULL
);
CREATE TABLE agent_contacts (
  job_id TEXT COLLATE "C" NOT NULL,
  trial_id BIGINT NOT NULL,
  replica TEXT COLLATE "C" NOT NULL,
  heard_at TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (job_id, trial_id, replica)
);
CREATE TABLE replica_exits (
  id BIGSERIAL PRIMARY KEY,
  job_id TEXT COLLATE "C" NOT NULL,
  body BYTEA NOT NULL
);
CREATE INDEX replica_exits_by_job ON replica_exits (job_id, id);
)sql";

// API tokens and agents' credentials (api_token_store.h): the SHA-256 of
// the token, never the token; the ApiToken in `body`.
constexpr std::string_view kVersion4 = R"sql(
CREATE TABLE api_tokens (
  id TEXT COLLATE "C" PRIMARY KEY,
  token_hash TEXT COLLATE "C" NOT NULL UNIQUE,
  create_time_micros BIGINT NOT NULL,
  body BYTEA NOT NULL
);
)sql";

// The audit log (audit_log_store.h): append-only (the triggers refuse a
// change, a removal or a truncation through PostgreSQL) and hash-chained
// (audit_chain.h), so a change made around them shows in `vernier audit
// verify`.
constexpr std::string_view kVersion5 = R"sql(
CREATE TABLE audit_log (
  sequence BIGINT PRIMARY KEY,
  time_micros BIGINT NOT NULL,
  user_name TEXT COLLATE "C" NOT NULL,
  resource TEXT COLLATE "C" NOT NULL,
  body BYTEA NOT NULL,
  hash TEXT NOT NULL
);
CREATE INDEX audit_log_by_time ON audit_log (time_micros);
CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN RAISE EXCEPTION 'the audit log is append-only'; END $$;
CREATE TRIGGER audit_log_no_change BEFORE UPDATE OR DELETE ON audit_log
  FOR EACH ROW EXECUTE PROCEDURE audit_log_append_only();
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
  FOR EACH STATEMENT EXECUTE PROCEDURE audit_log_append_only();
)sql";

// Each trial row and each measurement row records the transaction that last
// wrote it (`revision`, its 64-bit id; 0 for rows written before this
// version), so that ListTrialChanges reads the trials written since an
// earlier listing from two indexes instead of visiting every trial of the
// study. Appending a measurement leaves the trial's revision as it is (the
// measurement row has its own): that update of the trial stays a HOT one.
// The indexes lead with the revision: led by the study, the planner could
// take one for a statement that reads a study's rows by key (a trial's
// measurements), before it has statistics, and read every row of the study.
constexpr std::string_view kVersion6 = R"sql(
ALTER TABLE trials ADD COLUMN revision BIGINT NOT NULL DEFAULT 0;
ALTER TABLE trials ALTER COLUMN revision SET DEFAULT pg_current_xact_id()::text::bigint;
ALTER TABLE measurements ADD COLUMN revision BIGINT NOT NULL DEFAULT 0;
ALTER TABLE measurements ALTER COLUMN revision SET DEFAULT pg_current_xact_id()::text::bigint;
CREATE INDEX trials_by_revision ON trials (revision, study_name);
CREATE INDEX measurements_by_revision ON measurements (revision, study_name);
)sql";

constexpr std::array<std::string_view, 6> kMigrations = {kVersion1, kVersion2, kVersion3,
                                                         kVersion4, kVersion5, kVersion6};

// pg_advisory_xact_lock's key for migrations: "VERNIERM" in ASCII.
constexpr int64_t kMigrationLockKey = 0x5645524E4945524D;

}  // namespace

std::span<const std::string_view> PostgresSchemaMigrations() { return kMigrations; }

absl::StatusOr<int> MigratePostgresSchema(pqxx::connection& connection,
                                          std::span<const std::string_view> migrations,
                                          std::string_view description) {
  const int known = static_cast<int>(migrations.size());
  int found = 0;
  std::string doing =
      absl::StrCat("reading the schema version of database ", text::AbslView(description));
  try {
    pqxx::work transaction(connection);
    transaction.exec_params("SELECT pg_advisory_xact_lock($1)", kMigrationLockKey);
    transaction.exec("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)");
    // MAX over no rows is NULL, read as 0: a database Vernier has not set up.
    found =
        transaction.exec("SELECT COALESCE(MAX(version), 0) FROM schema_version")[0][0].as<int>();
    if (found > known) {
      return absl::FailedPreconditionError(absl::StrCat(
          "PostgreSQL database ", text::AbslView(description), " has schema version ", found,
          ", newer than version ", known,
          ", the newest this Vernier knows; run a Vernier at least as new as the one that "
          "wrote it"));
    }
    for (int version = found + 1; version <= known; ++version) {
      doing = absl::StrCat("migrating database ", text::AbslView(description),
                           " to schema version ", version);
      transaction.exec(std::string(migrations[version - 1]));
    }
    if (found != known) {
      transaction.exec("DELETE FROM schema_version");
      transaction.exec_params("INSERT INTO schema_version (version) VALUES ($1)", known);
    }
    transaction.commit();
  } catch (const std::exception& error) {
    return PostgresError(error, doing);
  }
  if (found != known) {
    spdlog::info("migrated PostgreSQL database {} from schema version {} to {}", description, found,
                 known);
  }
  return found;
}

}  // namespace vernier::storage
