#ifndef VERNIER_TUNER_STORAGE_POSTGRES_POSTGRES_STATEMENTS_H_
#define VERNIER_TUNER_STORAGE_POSTGRES_POSTGRES_STATEMENTS_H_

#include "absl/time/time.h"
#include "pqxx/connection"

namespace vernier::storage {

// Sets up the PostgreSQL store's sessions (PostgresConnectionPool::Setup).

// Prepares every statement the store runs on a transaction connection.
void PreparePostgresStatements(pqxx::connection& connection);

// The same, with the planner held to index lookups and nested loops, in the
// session's own process and without JIT compilation, whatever the tables'
// size or statistics. For the one connection that writes group-commit
// measurement batches (a batch touches a handful of trial rows by primary
// key), and for the connections that read what changed in a study since a
// revision (ListTrialChanges: the revision indexes, then trials by key,
// even for a study newer than the table's statistics, which the planner
// takes for one row and would read by every row of the study instead).
void PreparePostgresIndexLookupSession(pqxx::connection& connection);

// A connection that holds study locks (advisory locks), which waits at most
// `lock_timeout` for one.
void PreparePostgresLockSession(pqxx::connection& connection, absl::Duration lock_timeout);

}  // namespace vernier::storage

#endif  // VERNIER_TUNER_STORAGE_POSTGRES_POSTGRES_STATEMENTS_H_
