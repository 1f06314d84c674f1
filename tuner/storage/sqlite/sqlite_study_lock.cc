#include "tuner/storage/sqlite/sqlite_study_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "text/absl_view.h"

namespace vernier::storage {
namespace {

// Stable across processes and builds, unlike std::hash.
uint64_t Fnv1a(std::string_view text) {
  uint64_t hash = 14695981039346656037ULL;
  for (const char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ULL;
  }
  return hash;
}

}  // namespace

absl::StatusOr<std::unique_ptr<SqliteStudyLock>> SqliteStudyLock::Acquire(
    const std::string& lock_file, std::string_view study_name, absl::Duration timeout) {
  const int fd = open(lock_file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) {
    return absl::InternalError(
        absl::StrCat("cannot open the study lock file \"", lock_file, "\": ", strerror(errno)));
  }
  struct flock region = {};
  region.l_type = F_WRLCK;
  region.l_whence = SEEK_SET;
  // Byte ranges past the end of the file are lockable; the file stays empty.
  region.l_start = static_cast<off_t>(Fnv1a(study_name) & 0x7fffffffffffULL);
  region.l_len = 1;
  const absl::Time deadline = absl::Now() + timeout;
  absl::Duration backoff = absl::Milliseconds(1);
  // Polled rather than F_OFD_SETLKW, which has no timeout.
  while (fcntl(fd, F_OFD_SETLK, &region) != 0) {
    const int error = errno;
    if (error != EAGAIN && error != EACCES && error != EINTR) {
      close(fd);
      return absl::InternalError(absl::StrCat("locking study \"", text::AbslView(study_name),
                                              "\" in \"", lock_file,
                                              "\" failed: ", strerror(error)));
    }
    if (absl::Now() >= deadline) {
      close(fd);
      return absl::UnavailableError(absl::StrCat("study \"", text::AbslView(study_name),
                                                 "\" stayed locked by another ", "suggestion for ",
                                                 absl::FormatDuration(timeout), "; try again"));
    }
    absl::SleepFor(backoff);
    backoff = std::min(backoff * 2, absl::Milliseconds(20));
  }
  return std::unique_ptr<SqliteStudyLock>(new SqliteStudyLock(fd));
}

SqliteStudyLock::~SqliteStudyLock() { close(fd_); }

}  // namespace vernier::storage
