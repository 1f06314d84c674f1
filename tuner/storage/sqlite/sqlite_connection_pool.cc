#include "tuner/storage/sqlite/sqlite_connection_pool.h"

#include "absl/strings/str_cat.h"
#include "spdlog/spdlog.h"

namespace vernier::storage {

SqliteConnectionPool::SqliteConnectionPool(std::string path, int max_connections,
                                           absl::Duration busy_timeout)
    : ConnectionPool<SqliteConnection>(
          absl::StrCat("SQLite database ", path), max_connections, absl::InfiniteDuration(),
          [path, busy_timeout] { return SqliteConnection::Open(path, busy_timeout); },
          [](SqliteConnection& connection) {
            if (!connection.InTransaction()) return true;
            spdlog::warn("closing a connection to SQLite database {} left inside a transaction",
                         connection.path());
            return false;
          }) {}

}  // namespace vernier::storage
