#include "tuner/storage/sqlite_connection_pool.h"

#include <algorithm>
#include <utility>

#include "spdlog/spdlog.h"

namespace vernier::storage {

SqliteConnectionPool::Lease::Lease(SqliteConnectionPool* pool,
                                   std::unique_ptr<SqliteConnection> connection)
    : pool_(pool), connection_(std::move(connection)) {}

SqliteConnectionPool::Lease::Lease(Lease&& other) noexcept
    : pool_(other.pool_), connection_(std::move(other.connection_)) {}

SqliteConnectionPool::Lease::~Lease() {
  if (connection_ != nullptr) pool_->Release(std::move(connection_));
}

SqliteConnectionPool::SqliteConnectionPool(std::string path, int max_connections,
                                           absl::Duration busy_timeout)
    : path_(std::move(path)),
      max_connections_(std::max(1, max_connections)),
      busy_timeout_(busy_timeout) {}

void SqliteConnectionPool::Adopt(std::unique_ptr<SqliteConnection> connection) {
  absl::MutexLock lock(&mutex_);
  ++open_count_;
  idle_.push_back(std::move(connection));
}

absl::StatusOr<SqliteConnectionPool::Lease> SqliteConnectionPool::Acquire() {
  {
    absl::MutexLock lock(&mutex_);
    auto can_proceed = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
      return !idle_.empty() || open_count_ < max_connections_;
    };
    mutex_.Await(absl::Condition(&can_proceed));
    if (!idle_.empty()) {
      std::unique_ptr<SqliteConnection> connection = std::move(idle_.back());
      idle_.pop_back();
      return Lease(this, std::move(connection));
    }
    ++open_count_;
  }
  // Opening touches the file, so it happens outside the pool's lock.
  absl::StatusOr<std::unique_ptr<SqliteConnection>> connection =
      SqliteConnection::Open(path_, busy_timeout_);
  if (!connection.ok()) {
    absl::MutexLock lock(&mutex_);
    --open_count_;
    return connection.status();
  }
  return Lease(this, *std::move(connection));
}

void SqliteConnectionPool::Release(std::unique_ptr<SqliteConnection> connection) {
  // A connection still inside a transaction (its ROLLBACK failed) would hold
  // the write lock or an old snapshot for its next user: close it instead.
  if (connection->InTransaction()) {
    spdlog::warn("closing a connection to SQLite database {} left inside a transaction",
                 connection->path());
    connection.reset();
    absl::MutexLock lock(&mutex_);
    --open_count_;
    return;
  }
  absl::MutexLock lock(&mutex_);
  idle_.push_back(std::move(connection));
}

int SqliteConnectionPool::open_connections() const {
  absl::MutexLock lock(&mutex_);
  return open_count_;
}

}  // namespace vernier::storage
