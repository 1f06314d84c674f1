#ifndef VERNIER_TUNER_STORAGE_POSTGRES_CONNECTION_POOL_H_
#define VERNIER_TUNER_STORAGE_POSTGRES_CONNECTION_POOL_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "pqxx/connection"

namespace vernier::storage {

// Up to `max_connections` connections to one PostgreSQL database, opened when
// first needed and set up once each (prepared statements, session settings).
// A caller holds a connection of its own for one transaction; nothing else is
// serialised, so transactions of different callers run side by side on the
// server. A connection that broke is closed instead of going back.
class PostgresConnectionPool {
 public:
  // Runs on every new connection before it is lent out; may throw pqxx errors.
  using Setup = std::function<void(pqxx::connection&)>;

  // A borrowed connection, given back to the pool when the lease ends.
  class Lease {
   public:
    Lease(PostgresConnectionPool* pool, std::unique_ptr<pqxx::connection> connection);
    Lease(Lease&& other) noexcept;
    Lease& operator=(Lease&&) = delete;
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease();

    pqxx::connection& operator*() const { return *connection_; }
    pqxx::connection* operator->() const { return connection_.get(); }
    // Closes the connection when the lease ends rather than reusing it: its
    // session is in an unknown state (lost, or mid-statement).
    void Discard() { discard_ = true; }

   private:
    PostgresConnectionPool* pool_;
    std::unique_ptr<pqxx::connection> connection_;
    bool discard_ = false;
  };

  // `url` is a libpq connection string or URI; `description` names the
  // database in errors and logs without its password.
  PostgresConnectionPool(std::string url, std::string description, int max_connections,
                         absl::Duration acquire_timeout, Setup setup);
  PostgresConnectionPool(const PostgresConnectionPool&) = delete;
  PostgresConnectionPool& operator=(const PostgresConnectionPool&) = delete;

  // An idle connection, a new one while fewer than the maximum are open, or
  // else the first one given back. UNAVAILABLE when the server refuses a new
  // connection (marked retryable, see postgres_error.h), or none comes free
  // within the acquire timeout.
  absl::StatusOr<Lease> Acquire();

  int open_connections() const;

 private:
  void Release(std::unique_ptr<pqxx::connection> connection, bool discard);
  absl::StatusOr<std::unique_ptr<pqxx::connection>> Connect();

  const std::string url_;
  const std::string description_;
  const int max_connections_;
  const absl::Duration acquire_timeout_;
  const Setup setup_;
  mutable absl::Mutex mutex_;
  std::vector<std::unique_ptr<pqxx::connection>> idle_ ABSL_GUARDED_BY(mutex_);
  // Idle, lent out, or being opened.
  int open_count_ ABSL_GUARDED_BY(mutex_) = 0;
};

}  // namespace vernier::storage

#endif  // VERNIER_TUNER_STORAGE_POSTGRES_CONNECTION_POOL_H_
