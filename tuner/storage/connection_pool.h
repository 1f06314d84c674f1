#ifndef VERNIER_TUNER_STORAGE_CONNECTION_POOL_H_
#define VERNIER_TUNER_STORAGE_CONNECTION_POOL_H_

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace vernier::storage {

// Up to `max_connections` connections of one store, opened when callers first
// need them. Each caller holds a connection of its own for one transaction,
// so transactions run side by side and wait only on the database's locks,
// never on a lock of ours. A connection whose session is in doubt (still in
// a transaction, broken) is closed rather than lent again.
template <typename Connection>
class ConnectionPool {
 public:
  // Opens a connection ready for use; runs outside the pool's lock.
  using Opener = std::function<absl::StatusOr<std::unique_ptr<Connection>>()>;
  // Whether a connection given back may be lent again.
  using ReuseCheck = std::function<bool(Connection&)>;

  // A borrowed connection, given back to the pool when the lease ends.
  class Lease {
   public:
    Lease(ConnectionPool* pool, std::unique_ptr<Connection> connection)
        : pool_(pool), connection_(std::move(connection)) {}
    Lease(Lease&& other) noexcept
        : pool_(other.pool_), connection_(std::move(other.connection_)), discard_(other.discard_) {}
    Lease& operator=(Lease&&) = delete;
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease() {
      if (connection_ != nullptr) pool_->Release(std::move(connection_), discard_);
    }

    Connection& operator*() const { return *connection_; }
    Connection* operator->() const { return connection_.get(); }
    // Closes the connection when the lease ends instead of lending it again.
    void Discard() { discard_ = true; }

   private:
    ConnectionPool* pool_;
    std::unique_ptr<Connection> connection_;
    bool discard_ = false;
  };

  // `description` names the store in errors. Acquire waits `acquire_timeout`
  // at most for a connection to come free.
  ConnectionPool(std::string description, int max_connections, absl::Duration acquire_timeout,
                 Opener open, ReuseCheck reusable)
      : description_(std::move(description)),
        max_connections_(std::max(1, max_connections)),
        acquire_timeout_(acquire_timeout),
        open_(std::move(open)),
        reusable_(std::move(reusable)) {}
  ConnectionPool(const ConnectionPool&) = delete;
  ConnectionPool& operator=(const ConnectionPool&) = delete;

  // Adds an already open connection (the one that migrated the schema).
  void Adopt(std::unique_ptr<Connection> connection) {
    absl::MutexLock lock(&mutex_);
    ++open_count_;
    idle_.push_back(std::move(connection));
  }

  // An idle connection, a new one while fewer than the maximum are open, or
  // else the first one given back. The opener's error when opening fails;
  // UNAVAILABLE when no connection comes free within the acquire timeout.
  absl::StatusOr<Lease> Acquire() {
    {
      absl::MutexLock lock(&mutex_);
      auto can_proceed = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
        return !idle_.empty() || open_count_ < max_connections_;
      };
      if (!mutex_.AwaitWithTimeout(absl::Condition(&can_proceed), acquire_timeout_)) {
        return absl::UnavailableError(absl::StrCat(description_, ": all ", max_connections_,
                                                   " connections stayed busy for ",
                                                   absl::FormatDuration(acquire_timeout_)));
      }
      if (!idle_.empty()) {
        std::unique_ptr<Connection> connection = std::move(idle_.back());
        idle_.pop_back();
        return Lease(this, std::move(connection));
      }
      ++open_count_;
    }
    absl::StatusOr<std::unique_ptr<Connection>> connection = open_();
    if (!connection.ok()) {
      absl::MutexLock lock(&mutex_);
      --open_count_;
      return connection.status();
    }
    return Lease(this, *std::move(connection));
  }

  // Idle, lent out, or being opened; never more than max_connections.
  int open_connections() const {
    absl::MutexLock lock(&mutex_);
    return open_count_;
  }

 private:
  void Release(std::unique_ptr<Connection> connection, bool discard) {
    if (discard || !reusable_(*connection)) {
      connection.reset();
      absl::MutexLock lock(&mutex_);
      --open_count_;
      return;
    }
    absl::MutexLock lock(&mutex_);
    idle_.push_back(std::move(connection));
  }

  const std::string description_;
  const int max_connections_;
  const absl::Duration acquire_timeout_;
  const Opener open_;
  const ReuseCheck reusable_;
  mutable absl::Mutex mutex_;
  std::vector<std::unique_ptr<Connection>> idle_ ABSL_GUARDED_BY(mutex_);
  int open_count_ ABSL_GUARDED_BY(mutex_) = 0;
};

}  // namespace vernier::storage

#endif  // VERNIER_TUNER_STORAGE_CONNECTION_POOL_H_
