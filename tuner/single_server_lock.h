#ifndef VERNIER_TUNER_SINGLE_SERVER_LOCK_H_
#define VERNIER_TUNER_SINGLE_SERVER_LOCK_H_

#include <string>

#include "absl/status/statusor.h"

namespace vernier::tuner {

// Keeps a second `vernier serve` off an embedded SQLite database: a SQLite
// file belongs to one server (several servers share a PostgreSQL database
// instead). An exclusive flock on DB.server.lock, held for the server's
// life: the kernel drops it when the process ends, however it ends, so a
// server killed with SIGKILL never locks out the next one. The descriptor is
// close-on-exec, so the replicas and agents a server starts, which outlive
// it, never hold it. The file records the holder's PID for the message.
class SingleServerLock {
 public:
  // FailedPrecondition naming the database and the PID holding it when
  // another process holds the lock.
  static absl::StatusOr<SingleServerLock> Acquire(const std::string& database_path);

  SingleServerLock(SingleServerLock&& other) noexcept;
  SingleServerLock& operator=(SingleServerLock&& other) noexcept;
  SingleServerLock(const SingleServerLock&) = delete;
  SingleServerLock& operator=(const SingleServerLock&) = delete;
  ~SingleServerLock();

 private:
  explicit SingleServerLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace vernier::tuner

#endif  // VERNIER_TUNER_SINGLE_SERVER_LOCK_H_
