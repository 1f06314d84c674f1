#ifndef VERNIER_SCHEDULER_PATH_BENEATH_H_
#define VERNIER_SCHEDULER_PATH_BENEATH_H_

#include <sys/types.h>

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace vernier::scheduler {

// Creating what the server writes under a job dir (trial directories, log
// files, batch scripts) without following symbolic links: `root` (the job
// dir, itself as the submitter named it) is opened once, and every
// component of `path` below it is created and opened relative to its
// parent's descriptor (mkdirat, openat with O_NOFOLLOW), so a symbolic link
// planted at any of them is refused, never followed, and nothing is written
// through it. `path` must be `root` or lie under it (lexically, without
// "..").
//
// Errors name the path: FAILED_PRECONDITION for a symbolic link, for a
// component that is not a directory, for a file that is not a regular
// file, and for a path outside `root`; the errno's status for the rest.

// Whether the server may run a job in `job_dir` (absolute), checked at
// submit; FAILED_PRECONDITION naming the path otherwise. The server cannot
// tell which user submitted, so it refuses what would let another user
// steer its writes: a job dir that exists must be a directory owned by the
// server's user; a job dir to be created must have a nearest existing
// folder the server may write; neither may be writable by every user
// without the sticky bit.
absl::Status CheckJobDir(const std::string& job_dir);

// Whether `path` is `root` or lies under it, lexically (without "..").
bool IsBeneath(const std::string& root, const std::string& path);

// Creates the directory `path` and the missing ones above it up to `root`
// (mode 0755 before the umask).
absl::Status MakeDirectoriesBeneath(const std::string& root, const std::string& path);

// Opens the regular file `path` with `flags` (O_WRONLY | O_CREAT |
// O_APPEND, say; O_NOFOLLOW and O_CLOEXEC are added), creating the
// directories above it as MakeDirectoriesBeneath does. A FIFO or device
// there is refused without blocking. The caller closes the descriptor.
absl::StatusOr<int> OpenFileBeneath(const std::string& root, const std::string& path, int flags,
                                    mode_t mode = 0644);

}  // namespace vernier::scheduler

#endif  // VERNIER_SCHEDULER_PATH_BENEATH_H_
