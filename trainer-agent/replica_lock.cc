#include "trainer-agent/replica_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace vernier::agent {

absl::StatusOr<ReplicaLock> ReplicaLock::TryAcquire(const std::string& path) {
  std::error_code error;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), error);
  if (error) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot create the directory of ", path, ": ", error.message()));
  }
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    return absl::FailedPreconditionError(absl::StrCat("cannot open ", path, ": ", strerror(errno)));
  }
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int lock_errno = errno;
    char holder[32] = {};
    const ssize_t got = pread(fd, holder, sizeof(holder) - 1, 0);
    close(fd);
    if (lock_errno != EWOULDBLOCK) {
      return absl::FailedPreconditionError(
          absl::StrCat("cannot lock ", path, ": ", strerror(lock_errno)));
    }
    int64_t pid = 0;
    const bool known = got > 0 && absl::SimpleAtoi(absl::StripAsciiWhitespace(holder), &pid);
    return absl::UnavailableError(absl::StrCat(
        "another vernier-agent", known ? absl::StrCat(" (pid ", pid, ")") : "", " holds ", path));
  }
  // The pid only names the holder to a waiting agent; without it the lock
  // holds all the same.
  const std::string pid = absl::StrCat(getpid(), "\n");
  if (ftruncate(fd, 0) == 0) (void)!pwrite(fd, pid.data(), pid.size(), 0);
  return ReplicaLock(fd);
}

ReplicaLock::ReplicaLock(ReplicaLock&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}

ReplicaLock& ReplicaLock::operator=(ReplicaLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

ReplicaLock::~ReplicaLock() {
  if (fd_ >= 0) close(fd_);
}

}  // namespace vernier::agent
