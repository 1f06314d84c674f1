#include "tuner/storage/postgres_connection_pool.h"

#include <algorithm>
#include <exception>
#include <utility>

#include "absl/strings/str_cat.h"
#include "spdlog/spdlog.h"
#include "tuner/storage/postgres_error.h"

namespace vernier::storage {

PostgresConnectionPool::Lease::Lease(PostgresConnectionPool* pool,
                                     std::unique_ptr<pqxx::connection> connection)
    : pool_(pool), connection_(std::move(connection)) {}

PostgresConnectionPool::Lease::Lease(Lease&& other) noexcept
    : pool_(other.pool_), connection_(std::move(other.connection_)), discard_(other.discard_) {}

PostgresConnectionPool::Lease::~Lease() {
  if (connection_ != nullptr) pool_->Release(std::move(connection_), discard_);
}

PostgresConnectionPool::PostgresConnectionPool(std::string url, std::string description,
                                               int max_connections, absl::Duration acquire_timeout,
                                               Setup setup)
    : url_(std::move(url)),
      description_(std::move(description)),
      max_connections_(std::max(1, max_connections)),
      acquire_timeout_(acquire_timeout),
      setup_(std::move(setup)) {}

absl::StatusOr<PostgresConnectionPool::Lease> PostgresConnectionPool::Acquire() {
  {
    absl::MutexLock lock(&mutex_);
    auto can_proceed = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
      return !idle_.empty() || open_count_ < max_connections_;
    };
    if (!mutex_.AwaitWithTimeout(absl::Condition(&can_proceed), acquire_timeout_)) {
      return absl::UnavailableError(absl::StrCat("PostgreSQL store ", description_, ": all ",
                                                 max_connections_, " connections stayed busy for ",
                                                 absl::FormatDuration(acquire_timeout_)));
    }
    if (!idle_.empty()) {
      std::unique_ptr<pqxx::connection> connection = std::move(idle_.back());
      idle_.pop_back();
      return Lease(this, std::move(connection));
    }
    ++open_count_;
  }
  // Connecting takes a round trip or more, so it happens outside the lock.
  absl::StatusOr<std::unique_ptr<pqxx::connection>> connection = Connect();
  if (!connection.ok()) {
    absl::MutexLock lock(&mutex_);
    --open_count_;
    return connection.status();
  }
  return Lease(this, *std::move(connection));
}

absl::StatusOr<std::unique_ptr<pqxx::connection>> PostgresConnectionPool::Connect() {
  try {
    // A connection that broke is never used again (Release closes it), so
    // libpqxx 6's reactivation of broken connections never comes into play.
    auto connection = std::make_unique<pqxx::connection>(url_);
    if (setup_) setup_(*connection);
    return connection;
  } catch (const std::exception& error) {
    // A refused connection is UNAVAILABLE and retryable; a failing setup
    // statement keeps its own code.
    return PostgresError(error, absl::StrCat("connecting to ", description_));
  }
}

void PostgresConnectionPool::Release(std::unique_ptr<pqxx::connection> connection, bool discard) {
  if (discard || !connection->is_open()) {
    spdlog::warn("closing a connection to PostgreSQL store {} whose session is lost or unknown",
                 description_);
    connection.reset();
    absl::MutexLock lock(&mutex_);
    --open_count_;
    return;
  }
  absl::MutexLock lock(&mutex_);
  idle_.push_back(std::move(connection));
}

int PostgresConnectionPool::open_connections() const {
  absl::MutexLock lock(&mutex_);
  return open_count_;
}

}  // namespace vernier::storage
