#ifndef VERNIER_TUNER_STORAGE_POSTGRES_POSTGRES_CONNECTION_POOL_H_
#define VERNIER_TUNER_STORAGE_POSTGRES_POSTGRES_CONNECTION_POOL_H_

#include <functional>
#include <string>

#include "absl/time/time.h"
#include "pqxx/connection"
#include "tuner/storage/connection_pool.h"

namespace vernier::storage {

// Connections to one PostgreSQL database, each set up once when opened
// (prepared statements, session settings). A connection that broke is closed
// rather than lent again, and so is one a caller Discard()ed (its session in
// an unknown state).
class PostgresConnectionPool : public ConnectionPool<pqxx::connection> {
 public:
  // Runs on every new connection before it is lent out; may throw pqxx errors.
  using Setup = std::function<void(pqxx::connection&)>;

  // `url` is a libpq connection string or URI; `description` names the
  // database in errors and logs without its password. Opening fails
  // UNAVAILABLE, marked retryable (postgres_error.h), when the server refuses.
  PostgresConnectionPool(std::string url, const std::string& description, int max_connections,
                         absl::Duration acquire_timeout, Setup setup);
};

}  // namespace vernier::storage

#endif  // VERNIER_TUNER_STORAGE_POSTGRES_POSTGRES_CONNECTION_POOL_H_
