#include "tuner/storage/postgres/postgres_statements.h"

#include <utility>

#include "absl/strings/str_format.h"
#include "pqxx/nontransaction"

namespace vernier::storage {
namespace {

// A trial row: its body, then the columns that override the body's
// measurement_count and latest_measurement (schema version 2).
#define TRIAL_COLUMNS "body, measurement_count, latest_measurement"

// Every statement the store runs, prepared once per connection. Row locks
// are FOR NO KEY UPDATE: they exclude other writers of the row but not the
// foreign-key checks of rows inserted beside it (a trial's measurements).
// `rank_key` parameters are NaN for "none" (objectives are always finite).
constexpr std::pair<const char*, const char*> kStatements[] = {
    {"get_study", "SELECT body FROM studies WHERE name = $1"},
    {"get_study_for_update", "SELECT body FROM studies WHERE name = $1 FOR NO KEY UPDATE"},
    {"study_exists", "SELECT 1 FROM studies WHERE name = $1"},
    {"insert_study",
     "INSERT INTO studies (name, state, create_time_micros, body) VALUES ($1, $2, $3, $4) "
     "ON CONFLICT (name) DO NOTHING"},
    {"list_studies", "SELECT body FROM studies WHERE name > $1 ORDER BY name LIMIT $2"},
    {"update_study",
     "UPDATE studies SET state = $2, create_time_micros = $3, body = $4 WHERE name = $1"},
    {"delete_study", "DELETE FROM studies WHERE name = $1"},

    // Not in the statement that locks the study: under READ COMMITTED that
    // statement's snapshot predates the lock it waited for, so it would miss
    // the trials the previous holder added.
    {"largest_trial_id", "SELECT COALESCE(MAX(id), 0) FROM trials WHERE study_name = $1"},
    // Trials from arrays of ids, states, client ids, rank keys ('NaN': none)
    // and bodies, one element per trial.
    {"insert_trials",
     "INSERT INTO trials (study_name, id, state, client_id, rank_key, body) "
     "SELECT $1, id, state, client_id, NULLIF(rank_key, 'NaN'), body FROM unnest("
     "$2::bigint[], $3::integer[], $4::text[], $5::double precision[], $6::bytea[]) "
     "AS input(id, state, client_id, rank_key, body)"},
    // insert_trials ($1 to $6) only if the study's largest trial id is still
    // $7, the one the ids follow; otherwise none. Trials another creator
    // inserted meanwhile with the same ids fail it on the primary key, and
    // a study that does not exist on the foreign key.
    {"insert_trials_after",
     "INSERT INTO trials (study_name, id, state, client_id, rank_key, body) "
     "SELECT $1, id, state, client_id, NULLIF(rank_key, 'NaN'), body FROM unnest("
     "$2::bigint[], $3::integer[], $4::text[], $5::double precision[], $6::bytea[]) "
     "AS input(id, state, client_id, rank_key, body) "
     "WHERE (SELECT COALESCE(MAX(id), 0) FROM trials WHERE study_name = $1) = $7"},
    // Trial rows are read as TrialRow() parses them.
    {"get_trial", "SELECT " TRIAL_COLUMNS " FROM trials WHERE study_name = $1 AND id = $2"},
    // The listings add the id (for ListTrialBodies, which parses nothing).
    {"list_trials", "SELECT " TRIAL_COLUMNS
                    ", id FROM trials WHERE study_name = $1 AND id > $2 ORDER BY id LIMIT $3"},
    {"list_trials_in_states",
     "SELECT " TRIAL_COLUMNS
     ", id FROM trials WHERE study_name = $1 AND id > $2 AND state = ANY($3::integer[]) "
     "ORDER BY id LIMIT $4"},
    // ListTrialChanges: the trials whose row, or one of whose measurements,
    // a transaction with an id of at least $2 wrote, with the horizon of the
    // statement's snapshot (the oldest transaction it sees as running: every
    // write it does not see is by that one or a later one), and whether the
    // study exists: TRIAL_COLUMNS and the id, then those two. One row at
    // least (the trial's columns NULL for none). Run on a change lookup
    // session (PreparePostgresIndexLookupSession). The horizon is read
    // through a subquery, which hides its value from the planner, and the
    // study is tested in a form no index serves: the plan is the same for
    // every study and horizon, so the server keeps one (a generic plan)
    // instead of planning the statement on every call, and reads the
    // revision indexes, whatever the statistics say of the study. Each
    // changed trial is then read by its key (the LIMIT keeps the lateral
    // subquery a lookup per trial rather than a scan of the study's trials).
    {"list_trial_changes",
     "WITH since AS (SELECT $2::bigint AS revision), changed AS ("
     " SELECT id FROM trials"
     " WHERE revision >= (SELECT revision FROM since) AND (study_name = $1) IS TRUE"
     " UNION SELECT trial_id FROM measurements"
     " WHERE revision >= (SELECT revision FROM since) AND (study_name = $1) IS TRUE) "
     "SELECT trial.body, trial.measurement_count, trial.latest_measurement, trial.id,"
     " pg_snapshot_xmin(pg_current_snapshot())::text,"
     " EXISTS (SELECT 1 FROM studies WHERE name = $1)"
     " FROM (SELECT 1) AS one LEFT JOIN (changed CROSS JOIN LATERAL ("
     "  SELECT " TRIAL_COLUMNS ", id FROM trials WHERE study_name = $1 AND id = changed.id"
     "  LIMIT 1)"
     " AS trial) ON true ORDER BY trial.id"},
    // The same for every trial of the study (no earlier listing).
    {"list_all_trial_changes",
     "SELECT trials.body, trials.measurement_count, trials.latest_measurement, trials.id,"
     " pg_snapshot_xmin(pg_current_snapshot())::text,"
     " EXISTS (SELECT 1 FROM studies WHERE name = $1)"
     " FROM (SELECT 1) AS one LEFT JOIN trials ON trials.study_name = $1 ORDER BY trials.id"},
    {"list_best_trials",
     "SELECT " TRIAL_COLUMNS " FROM trials WHERE study_name = $1 AND rank_key IS NOT NULL "
     "ORDER BY rank_key, id LIMIT $2"},
    {"count_trials", "SELECT state, COUNT(*) FROM trials WHERE study_name = $1 GROUP BY state"},
    // A trial row with its version (xmin) and its study's body.
    {"get_trial_with_study",
     "SELECT trials.body, trials.measurement_count, trials.latest_measurement, trials.xmin,"
     " studies.body FROM trials JOIN studies ON studies.name = trials.study_name"
     " WHERE trials.study_name = $1 AND trials.id = $2"},
    // A trial's new body, only if the row is still the version ($7, its
    // xmin) read; its revision is this transaction (ListTrialChanges).
    {"update_trial_if_unchanged",
     "UPDATE trials SET state = $3, client_id = $4, "
     "rank_key = NULLIF($5::double precision, 'NaN'), body = $6, "
     "revision = pg_current_xact_id()::text::bigint "
     "WHERE study_name = $1 AND id = $2 AND xmin = $7::xid"},
    // A trial in state $5 moves to state $3, with $4 appended to its body:
    // a serialized v1::Trial of the state and the status reason, which a
    // parser merges over the stored ones (a later singular field wins), so
    // the stored body is neither read nor sent. Returns the trial as stored
    // after the statement and whether it moved. When it did not, the row is
    // the one this statement's snapshot saw: a row changed by a writer that
    // committed while the update waited for its lock is still shown in
    // state $5 there, and the caller runs the statement again.
    {"stop_trial_if_active",
     "WITH moved AS ("
     " UPDATE trials SET state = $3, body = body || $4,"
     " revision = pg_current_xact_id()::text::bigint"
     " WHERE study_name = $1 AND id = $2 AND state = $5 RETURNING " TRIAL_COLUMNS ") "
     "SELECT " TRIAL_COLUMNS ", true FROM moved "
     "UNION ALL SELECT " TRIAL_COLUMNS ", false FROM trials"
     " WHERE study_name = $1 AND id = $2 AND NOT EXISTS (SELECT 1 FROM moved)"},

    // One round trip per measurement, autocommitted: the trial row's lock
    // orders the appends to one trial (a waiting append reads the count the
    // one before it wrote), the measurement goes in only while the trial is
    // in one of the states $6 (empty: any) and only if its sequence number
    // ($3 > 0) is new, and the trial's count and latest measurement follow
    // it. Returns the trial as it was, and its new count if appended.
    {"append_measurement",
     "WITH trial AS ("
     " SELECT " TRIAL_COLUMNS ", state FROM trials"
     " WHERE study_name = $1 AND id = $2 FOR NO KEY UPDATE), "
     "inserted AS ("
     " INSERT INTO measurements (study_name, trial_id, ordinal, sequence_number, step, body)"
     " SELECT $1, $2, measurement_count, $3, $4, $5 FROM trial"
     " WHERE cardinality($6::integer[]) = 0 OR state = ANY($6::integer[])"
     " ON CONFLICT (study_name, trial_id, sequence_number) WHERE sequence_number > 0 DO NOTHING"
     " RETURNING ordinal), "
     "appended AS ("
     " UPDATE trials SET measurement_count = inserted.ordinal + 1, latest_measurement = $5"
     " FROM inserted WHERE study_name = $1 AND id = $2 RETURNING trials.measurement_count) "
     "SELECT trial.*, appended.measurement_count FROM trial LEFT JOIN appended ON true"},
    // The same for many measurements at once, each to a different trial
    // (group commit, see AppendMeasurementBatch): arrays of study names,
    // trial ids, sequence numbers, steps and bodies, one element per
    // measurement. The trial rows are locked in key order, so two batches
    // never wait for each other in a cycle. Returns one row per measurement
    // whose trial exists: the trial as TRIAL_COLUMNS, its state, its new
    // count if appended, and the measurement's position (from 1).
    {"append_measurements",
     "WITH input AS ("
     " SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bytea[])"
     " WITH ORDINALITY AS input(study_name, trial_id, sequence_number, step, body, position)), "
     "trial AS ("
     " SELECT trials.body, trials.measurement_count, trials.latest_measurement, trials.state,"
     " trials.study_name, trials.id, input.position FROM input JOIN trials"
     " ON trials.study_name = input.study_name AND trials.id = input.trial_id"
     " ORDER BY trials.study_name, trials.id FOR NO KEY UPDATE OF trials), "
     "inserted AS ("
     " INSERT INTO measurements (study_name, trial_id, ordinal, sequence_number, step, body)"
     " SELECT input.study_name, input.trial_id, trial.measurement_count, input.sequence_number,"
     " input.step, input.body FROM input JOIN trial ON trial.position = input.position"
     " WHERE cardinality($6::integer[]) = 0 OR trial.state = ANY($6::integer[])"
     " ON CONFLICT (study_name, trial_id, sequence_number) WHERE sequence_number > 0 DO NOTHING"
     " RETURNING study_name, trial_id, ordinal, body), "
     "appended AS ("
     " UPDATE trials SET measurement_count = inserted.ordinal + 1,"
     " latest_measurement = inserted.body FROM inserted"
     " WHERE trials.study_name = inserted.study_name AND trials.id = inserted.trial_id"
     " RETURNING trials.study_name, trials.id, trials.measurement_count) "
     "SELECT trial.body, trial.measurement_count, trial.latest_measurement, trial.state,"
     " appended.measurement_count, trial.position FROM trial LEFT JOIN appended"
     " ON appended.study_name = trial.study_name AND appended.id = trial.id"},
    // append_measurements where a trial may have several measurements
    // (batches of AddMeasurements calls of several, in group commit), in one
    // statement: a trial's new measurements, those whose sequence number is
    // not stored yet, take the ordinals after its count in their order, and
    // its count and latest measurement follow the last. Returns one row per
    // measurement whose trial exists: the trial as TRIAL_COLUMNS, its state,
    // its count after this measurement if chosen to be appended, the
    // position (from 1), whether it was chosen, and how many of its trial's
    // were chosen and how many appended. A chosen one that cannot be
    // inserted (a sequence number stored by a transaction that committed
    // after this statement's snapshot, or twice in the input) would leave a
    // gap in the ordinals, so it fails the whole statement on the unique
    // index instead, and the statement stores all or nothing: it needs no
    // transaction of its own. No join of two
    // of its lists pairs every row with every other (they have no index).
    // `checked` is MATERIALIZED so that the duplicate check runs once per
    // measurement (inlined, it ran again for each of the four reads of
    // `chosen`), and its `sequence_number > 0` lets it look the number up in
    // the partial unique index instead of scanning the trial's measurements.
    {"append_measurement_runs",
     "WITH input AS ("
     " SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bytea[])"
     " WITH ORDINALITY AS input(study_name, trial_id, sequence_number, step, body, position)), "
     "trial AS ("
     " SELECT trials.body, trials.measurement_count, trials.latest_measurement, trials.state,"
     " trials.study_name, trials.id"
     " FROM (SELECT DISTINCT study_name, trial_id FROM input) AS wanted JOIN trials"
     " ON trials.study_name = wanted.study_name AND trials.id = wanted.trial_id"
     " ORDER BY trials.study_name, trials.id FOR NO KEY UPDATE OF trials), "
     "checked AS MATERIALIZED ("
     " SELECT input.*, trial.body AS trial_body, trial.measurement_count,"
     " trial.latest_measurement, trial.state,"
     " (cardinality($6::integer[]) = 0 OR trial.state = ANY($6::integer[]))"
     " AND (input.sequence_number <= 0 OR NOT EXISTS (SELECT 1 FROM measurements"
     "  WHERE measurements.study_name = input.study_name"
     "  AND measurements.trial_id = input.trial_id"
     "  AND measurements.sequence_number = input.sequence_number"
     "  AND measurements.sequence_number > 0)) AS chosen"
     " FROM input JOIN trial ON trial.study_name = input.study_name AND trial.id = "
     "input.trial_id), "
     "numbered AS ("
     " SELECT checked.*, CASE WHEN chosen THEN measurement_count + count(*) FILTER (WHERE chosen)"
     "  OVER (PARTITION BY study_name, trial_id ORDER BY position) - 1 END AS ordinal,"
     " count(*) FILTER (WHERE chosen) OVER (PARTITION BY study_name, trial_id) AS chosen_count"
     " FROM checked), "
     "inserted AS ("
     " INSERT INTO measurements (study_name, trial_id, ordinal, sequence_number, step, body)"
     " SELECT study_name, trial_id, ordinal, sequence_number, step, body FROM numbered"
     " WHERE chosen"
     " RETURNING study_name, trial_id), "
     "stored AS ("
     " SELECT study_name, trial_id, count(*) AS appended FROM inserted GROUP BY study_name, "
     "trial_id), "
     "last AS ("
     " SELECT DISTINCT ON (study_name, trial_id) study_name, trial_id, ordinal, body FROM numbered"
     " WHERE chosen ORDER BY study_name, trial_id, ordinal DESC), "
     "appended AS ("
     " UPDATE trials SET measurement_count = last.ordinal + 1, latest_measurement = last.body"
     " FROM last WHERE trials.study_name = last.study_name AND trials.id = last.trial_id"
     " RETURNING trials.id) "
     "SELECT numbered.trial_body, numbered.measurement_count, numbered.latest_measurement,"
     " numbered.state, numbered.ordinal + 1, numbered.position, numbered.chosen,"
     " numbered.chosen_count, COALESCE(stored.appended, 0)"
     " FROM numbered LEFT JOIN stored ON stored.study_name = numbered.study_name"
     " AND stored.trial_id = numbered.trial_id"},
    {"list_measurements",
     "SELECT trial_id, body FROM measurements "
     "WHERE study_name = $1 AND trial_id = ANY($2::bigint[]) ORDER BY trial_id, ordinal"},

    {"get_job", "SELECT body FROM jobs WHERE job_id = $1"},
    {"get_job_for_update", "SELECT body FROM jobs WHERE job_id = $1 FOR NO KEY UPDATE"},
    {"job_exists", "SELECT 1 FROM jobs WHERE job_id = $1"},
    {"insert_job",
     "INSERT INTO jobs (job_id, state, create_time_micros, body) VALUES ($1, $2, $3, $4) "
     "ON CONFLICT (job_id) DO NOTHING"},
    {"list_jobs", "SELECT body FROM jobs ORDER BY create_time_micros DESC, job_id DESC LIMIT $1"},
    {"list_jobs_after",
     "SELECT body FROM jobs "
     "WHERE (create_time_micros, job_id) < ($1, $2) "
     "ORDER BY create_time_micros DESC, job_id DESC LIMIT $3"},
    {"list_all_jobs_oldest_first", "SELECT body FROM jobs ORDER BY create_time_micros, job_id"},
    {"list_jobs_in_states_oldest_first",
     "SELECT body FROM jobs WHERE state = ANY($1::integer[]) "
     "ORDER BY create_time_micros, job_id"},
    {"update_job",
     "UPDATE jobs SET state = $2, create_time_micros = $3, body = $4 WHERE job_id = $1"},
    // DeleteJob: trial runs go by ON DELETE CASCADE.
    {"delete_job", "DELETE FROM jobs WHERE job_id = $1"},
    {"delete_job_lease", "DELETE FROM job_leases WHERE job_id = $1"},
    {"delete_agent_contacts", "DELETE FROM agent_contacts WHERE job_id = $1"},
    {"delete_replica_exits", "DELETE FROM replica_exits WHERE job_id = $1"},
    {"upsert_trial_run",
     "INSERT INTO trial_runs (job_id, trial_id, body) VALUES ($1, $2, $3) "
     "ON CONFLICT (job_id, trial_id) DO UPDATE SET body = excluded.body"},
    {"list_trial_runs", "SELECT body FROM trial_runs WHERE job_id = $1 ORDER BY trial_id"},
    {"list_trial_runs_of",
     "SELECT body FROM trial_runs WHERE job_id = $1 AND trial_id = ANY($2::bigint[]) "
     "ORDER BY trial_id"},

    {"insert_api_token",
     "INSERT INTO api_tokens (id, token_hash, create_time_micros, body) VALUES ($1, $2, $3, $4) "
     "ON CONFLICT DO NOTHING"},
    {"find_api_token", "SELECT body FROM api_tokens WHERE token_hash = $1"},
    {"list_api_tokens", "SELECT body FROM api_tokens ORDER BY create_time_micros, id"},
    {"get_api_token_for_update", "SELECT body FROM api_tokens WHERE id = $1 FOR UPDATE"},
    {"update_api_token", "UPDATE api_tokens SET body = $2 WHERE id = $1"},
    {"delete_api_token", "DELETE FROM api_tokens WHERE id = $1"},

    // audit_log_store.h. An append names its rows' sequences, chained after
    // the newest row the server knows; the primary key refuses the whole
    // statement when another server appended after that row meanwhile, and
    // the server reads the new newest row and chains again. Rows never
    // change (the triggers), so a known row is the stored one.
    {"last_audit_row",
     "SELECT sequence, time_micros, user_name, resource, body, hash FROM audit_log"
     " ORDER BY sequence DESC LIMIT 1"},
    // Rows from arrays of sequences, times, users, resources, bodies and
    // hashes, one element per row.
    {"insert_audit_rows",
     "INSERT INTO audit_log (sequence, time_micros, user_name, resource, body, hash)"
     " SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[], $5::bytea[],"
     " $6::text[])"},
    {"list_audit_rows",
     "SELECT sequence, time_micros, user_name, resource, body, hash FROM audit_log"
     " WHERE ($1 = '' OR user_name = $1) AND ($2 = '' OR resource = $2) AND time_micros >= $3"
     " ORDER BY sequence DESC LIMIT CASE WHEN $4 > 0 THEN $4 END"},
    {"read_audit_chain",
     "SELECT sequence, time_micros, user_name, resource, body, hash FROM audit_log"
     " ORDER BY sequence"},

    // job_coordination.h. A lease changes hands only when it expired (or was
    // released); its token grows then. Ids come sorted, so that two servers
    // taking leases together lock them in one order.
    {"acquire_job_leases",
     "INSERT INTO job_leases (job_id, holder, token, expires_at)"
     " SELECT id, $1, 1, now() + $3 * interval '1 microsecond' FROM unnest($2::text[]) AS id"
     // Leases another server holds are left unlocked: only the free, the
     // expired and its own are worth the row lock.
     " WHERE NOT EXISTS (SELECT 1 FROM job_leases AS held WHERE held.job_id = id"
     " AND held.holder <> $1 AND held.expires_at > now()) "
     "ON CONFLICT (job_id) DO UPDATE SET holder = excluded.holder,"
     " token = CASE WHEN job_leases.holder = excluded.holder THEN job_leases.token"
     " ELSE job_leases.token + 1 END,"
     " expires_at = excluded.expires_at "
     "WHERE job_leases.holder = excluded.holder OR job_leases.expires_at <= now() "
     "RETURNING job_id, token"},
    {"release_job_leases",
     "UPDATE job_leases SET expires_at = now() WHERE holder = $1 AND job_id = ANY($2::text[])"},
    // A fenced write's first statement: the lease row stays share-locked
    // until the write commits, so a new holder's take waits for it.
    {"check_job_lease", "SELECT holder, token FROM job_leases WHERE job_id = $1 FOR SHARE"},
    {"record_server",
     "INSERT INTO servers (server_id, agent_address, expires_at)"
     " VALUES ($1, $2, now() + $3 * interval '1 microsecond') "
     "ON CONFLICT (server_id) DO UPDATE SET agent_address = excluded.agent_address,"
     " expires_at = excluded.expires_at"},
    {"forget_dead_servers", "DELETE FROM servers WHERE expires_at < now() - interval '1 day'"},
    {"live_server_addresses",
     "SELECT agent_address FROM servers WHERE expires_at > now() ORDER BY server_id"},
    {"record_agent_contact",
     "INSERT INTO agent_contacts (job_id, trial_id, replica, heard_at) VALUES ($1, $2, $3, now()) "
     "ON CONFLICT (job_id, trial_id, replica) DO UPDATE SET heard_at = excluded.heard_at"},
    {"agent_contact_age",
     "SELECT (EXTRACT(EPOCH FROM (clock_timestamp() - heard_at)) * 1000000)::bigint "
     "FROM agent_contacts WHERE job_id = $1 AND trial_id = $2 AND replica = $3"},
    {"queue_replica_exit", "INSERT INTO replica_exits (job_id, body) VALUES ($1, $2)"},
    {"take_replica_exits", "DELETE FROM replica_exits WHERE job_id = $1 RETURNING id, body"},
};

#undef TRIAL_COLUMNS

// The session's planner reads by index and joins by nested loops only, in
// the session's own process and without compiling the plan: with the other
// plans priced out, or a range read whose bound the planner does not see
// (ListTrialChanges), a statement over a large table can look costly enough
// to start parallel workers or to be compiled (JIT), which takes longer
// (tens of milliseconds, on every call) than the lookups take.
void PlanIndexLookupsOnly(pqxx::connection& connection) {
  pqxx::nontransaction session(connection);
  session.exec("SET enable_seqscan = off");
  session.exec("SET enable_hashjoin = off");
  session.exec("SET enable_mergejoin = off");
  session.exec("SET max_parallel_workers_per_gather = 0");
  session.exec("SET jit = off");
}

}  // namespace

void PreparePostgresStatements(pqxx::connection& connection) {
  for (const auto& [name, sql] : kStatements) connection.prepare(name, sql);
}

// The connection that writes measurement batches, and those that read a
// study's changes. Each batch finds a handful of trial rows by primary key,
// but the planner costs those probes as random reads and, on a small or not
// yet analyzed trials table (any new database until autovacuum runs), picks
// a hash join over a sequential scan of trials instead; the connection's
// cached plan then keeps that scan while the table grows. Under load that
// tripled the batch statement's time (docs/benchmarks.md, "Measurement
// batches planned as key lookups"), so these sessions plan only index
// lookups and nested loops.
void PreparePostgresIndexLookupSession(pqxx::connection& connection) {
  PreparePostgresStatements(connection);
  PlanIndexLookupsOnly(connection);
}

void PreparePostgresLockSession(pqxx::connection& connection, absl::Duration lock_timeout) {
  connection.prepare("lock_study", "SELECT pg_advisory_lock($1, hashtext($2))");
  connection.prepare("unlock_study", "SELECT pg_advisory_unlock($1, hashtext($2))");
  pqxx::nontransaction session(connection);
  session.exec(absl::StrFormat("SET lock_timeout = %d", absl::ToInt64Milliseconds(lock_timeout)));
}

}  // namespace vernier::storage
