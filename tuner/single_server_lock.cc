#include "tuner/single_server_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"

namespace vernier::tuner {

absl::StatusOr<SingleServerLock> SingleServerLock::Acquire(const std::string& database_path) {
  const std::string lock_path = database_path + ".server.lock";
  const int fd = open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) {
    return absl::FailedPreconditionError(
        absl::StrFormat("cannot open %s: %s", lock_path, strerror(errno)));
  }
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    char buffer[32] = {};
    const ssize_t got = pread(fd, buffer, sizeof(buffer) - 1, 0);
    close(fd);
    if (error != EWOULDBLOCK) {
      return absl::FailedPreconditionError(
          absl::StrFormat("cannot lock %s: %s", lock_path, strerror(error)));
    }
    int64_t pid = 0;
    const std::string holder =
        got > 0 && absl::SimpleAtoi(absl::StripAsciiWhitespace(std::string(buffer, got)), &pid)
            ? absl::StrCat(" (PID ", pid, ")")
            : "";
    return absl::FailedPreconditionError(absl::StrFormat(
        "another vernier serve%s is using the SQLite database %s; a SQLite database belongs to "
        "one server: stop that one, give this one its own --data-dir or --db, or let several "
        "servers share a PostgreSQL database (--db postgresql://USER@HOST:PORT/DB)",
        holder, database_path));
  }
  const std::string pid = absl::StrCat(getpid(), "\n");
  if (ftruncate(fd, 0) != 0 || pwrite(fd, pid.data(), pid.size(), 0) < 0) {
    // The PID only improves a second server's message; the lock holds.
  }
  return SingleServerLock(fd);
}

SingleServerLock::SingleServerLock(SingleServerLock&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)) {}

SingleServerLock& SingleServerLock::operator=(SingleServerLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

SingleServerLock::~SingleServerLock() {
  if (fd_ >= 0) close(fd_);
}

}  // namespace vernier::tuner
