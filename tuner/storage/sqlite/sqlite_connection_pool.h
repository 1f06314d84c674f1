#ifndef VERNIER_TUNER_STORAGE_SQLITE_SQLITE_CONNECTION_POOL_H_
#define VERNIER_TUNER_STORAGE_SQLITE_SQLITE_CONNECTION_POOL_H_

#include <string>

#include "absl/time/time.h"
#include "tuner/storage/connection_pool.h"
#include "tuner/storage/sqlite/sqlite_connection.h"

namespace vernier::storage {

// Connections to one database file. Readers run side by side under WAL and
// only writers wait, on SQLite's lock. A connection given back still inside a
// transaction (its ROLLBACK failed) would hold the write lock or an old
// snapshot for its next user, so it is closed instead.
class SqliteConnectionPool : public ConnectionPool<SqliteConnection> {
 public:
  SqliteConnectionPool(std::string path, int max_connections, absl::Duration busy_timeout);
};

}  // namespace vernier::storage

#endif  // VERNIER_TUNER_STORAGE_SQLITE_SQLITE_CONNECTION_POOL_H_
