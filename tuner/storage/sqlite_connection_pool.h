#ifndef VERNIER_TUNER_STORAGE_SQLITE_CONNECTION_POOL_H_
#define VERNIER_TUNER_STORAGE_SQLITE_CONNECTION_POOL_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "tuner/storage/sqlite_connection.h"

namespace vernier::storage {

// Up to `max_connections` connections to one database file, opened when
// callers first need them. Each caller gets a connection of its own for the
// length of one transaction, so readers run side by side under WAL and only
// writers wait, on SQLite's lock rather than on a lock of ours.
class SqliteConnectionPool {
 public:
  // A borrowed connection, given back to the pool when the lease ends.
  class Lease {
   public:
    Lease(SqliteConnectionPool* pool, std::unique_ptr<SqliteConnection> connection);
    Lease(Lease&& other) noexcept;
    Lease& operator=(Lease&&) = delete;
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease();

    SqliteConnection& operator*() const { return *connection_; }
    SqliteConnection* operator->() const { return connection_.get(); }

   private:
    SqliteConnectionPool* pool_;
    std::unique_ptr<SqliteConnection> connection_;
  };

  SqliteConnectionPool(std::string path, int max_connections, absl::Duration busy_timeout);
  SqliteConnectionPool(const SqliteConnectionPool&) = delete;
  SqliteConnectionPool& operator=(const SqliteConnectionPool&) = delete;

  // Adds an already open connection (the one that migrated the schema).
  void Adopt(std::unique_ptr<SqliteConnection> connection);
  // An idle connection, a new one while fewer than the maximum are open, or
  // else the first one given back.
  absl::StatusOr<Lease> Acquire();

  int open_connections() const;

 private:
  void Release(std::unique_ptr<SqliteConnection> connection);

  const std::string path_;
  const int max_connections_;
  const absl::Duration busy_timeout_;
  mutable absl::Mutex mutex_;
  std::vector<std::unique_ptr<SqliteConnection>> idle_ ABSL_GUARDED_BY(mutex_);
  // Idle, lent out, or being opened.
  int open_count_ ABSL_GUARDED_BY(mutex_) = 0;
};

}  // namespace vernier::storage

#endif  // VERNIER_TUNER_STORAGE_SQLITE_CONNECTION_POOL_H_
