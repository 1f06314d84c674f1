#include "scheduler/path_beneath.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace vernier::scheduler {
namespace {

absl::Status SymlinkRefused(const std::string& path, const std::string& root) {
  return absl::FailedPreconditionError(absl::StrCat(
      "'", path, "' is a symbolic link; the server never follows links under the job dir '", root,
      "' (remove it, or use another job dir)"));
}

// The components of `path` below `root`, both made lexically normal;
// FAILED_PRECONDITION when `path` is not `root` or under it.
absl::StatusOr<std::vector<std::string>> ComponentsBelow(const std::string& root,
                                                         const std::string& path) {
  const std::filesystem::path normal_root = std::filesystem::path(root).lexically_normal();
  const std::filesystem::path normal_path = std::filesystem::path(path).lexically_normal();
  const std::filesystem::path relative = normal_path.lexically_relative(normal_root);
  std::vector<std::string> components;
  for (const std::filesystem::path& component : relative) {
    const std::string name = component.string();
    if (name.empty() || name == ".") continue;
    if (name == "..") {
      return absl::FailedPreconditionError(
          absl::StrCat("'", path, "' is not under the job dir '", root, "'"));
    }
    components.push_back(name);
  }
  if (relative.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("'", path, "' is not under the job dir '", root, "'"));
  }
  return components;
}

// Opens `root`, then creates (unless `create` is false) and opens each of
// `components` in turn below it as a directory, never following a link.
// Returns the last directory's descriptor.
absl::StatusOr<int> OpenDirectoryBeneath(const std::string& root,
                                         const std::vector<std::string>& components) {
  int fd = open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) {
    // The job dir itself is the submitter's path, checked at submit
    // (CheckJobDir): made as named.
    std::error_code error;
    std::filesystem::create_directories(root, error);
    if (error) {
      return absl::ErrnoToStatus(error.value(),
                                 absl::StrCat("cannot create the job dir '", root, "'"));
    }
    fd = open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  }
  if (fd < 0) {
    const int error = errno;
    return absl::ErrnoToStatus(error, absl::StrCat("cannot open the job dir '", root, "'"));
  }
  std::string reached = root;
  for (const std::string& name : components) {
    absl::Cleanup close_parent = [fd] { close(fd); };
    reached = (std::filesystem::path(reached) / name).string();
    if (mkdirat(fd, name.c_str(), 0755) != 0 && errno != EEXIST) {
      const int error = errno;
      return absl::ErrnoToStatus(error, absl::StrCat("cannot create directory '", reached, "'"));
    }
    const int child = openat(fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (child < 0) {
      const int error = errno;
      struct stat info;
      if (fstatat(fd, name.c_str(), &info, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(info.st_mode)) {
        return SymlinkRefused(reached, root);
      }
      if (error == ENOTDIR) {
        return absl::FailedPreconditionError(
            absl::StrCat("'", reached, "' is not a directory"));
      }
      return absl::ErrnoToStatus(error, absl::StrCat("cannot open directory '", reached, "'"));
    }
    fd = child;
    std::move(close_parent).Invoke();
  }
  return fd;
}

}  // namespace

bool IsBeneath(const std::string& root, const std::string& path) {
  return ComponentsBelow(root, path).ok();
}

absl::Status CheckJobDir(const std::string& job_dir) {
  std::filesystem::path existing = std::filesystem::path(job_dir).lexically_normal();
  struct stat info;
  while (stat(existing.c_str(), &info) != 0) {
    if (errno == ENOTDIR) {
      return absl::FailedPreconditionError(absl::StrCat(
          "job_dir '", job_dir, "': a folder on its path is not a directory"));
    }
    if (const int error = errno; error != ENOENT || !existing.has_relative_path()) {
      return absl::ErrnoToStatus(error, absl::StrCat("job_dir '", job_dir, "': cannot inspect '",
                                                     existing.string(), "'"));
    }
    existing = existing.parent_path();
  }
  const bool is_job_dir = existing == std::filesystem::path(job_dir).lexically_normal();
  const std::string what =
      is_job_dir ? absl::StrCat("job_dir '", job_dir, "'")
                 : absl::StrCat("job_dir '", job_dir, "': its nearest existing folder '",
                                existing.string(), "'");
  if (!S_ISDIR(info.st_mode)) {
    return absl::FailedPreconditionError(absl::StrCat(what, " is not a directory"));
  }
  if ((info.st_mode & S_IWOTH) != 0 && (info.st_mode & S_ISVTX) == 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        what, " is writable by every user without the sticky bit, so anyone could plant links "
              "in it; use a directory of your own (or chmod o-w or +t)"));
  }
  if (is_job_dir && info.st_uid != geteuid()) {
    return absl::FailedPreconditionError(absl::StrCat(
        what, " belongs to user ", info.st_uid, ", not to the server's user ", geteuid(),
        "; give a job dir the server may create, or one its user owns"));
  }
  if (!is_job_dir && access(existing.c_str(), W_OK | X_OK) != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat(what, " is not writable by the server's user, so it cannot create the job dir"));
  }
  return absl::OkStatus();
}

absl::Status MakeDirectoriesBeneath(const std::string& root, const std::string& path) {
  VERNIER_ASSIGN_OR_RETURN(const std::vector<std::string> components, ComponentsBelow(root, path));
  VERNIER_ASSIGN_OR_RETURN(const int fd, OpenDirectoryBeneath(root, components));
  close(fd);
  return absl::OkStatus();
}

absl::StatusOr<int> OpenFileBeneath(const std::string& root, const std::string& path, int flags,
                                    mode_t mode) {
  VERNIER_ASSIGN_OR_RETURN(std::vector<std::string> components, ComponentsBelow(root, path));
  if (components.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("'", path, "' is the job dir itself, not a file under it"));
  }
  const std::string name = components.back();
  components.pop_back();
  VERNIER_ASSIGN_OR_RETURN(const int directory, OpenDirectoryBeneath(root, components));
  absl::Cleanup close_directory = [directory] { close(directory); };
  // O_NONBLOCK: opening a FIFO must not wait for a reader.
  const int fd =
      openat(directory, name.c_str(), flags | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY, mode);
  if (fd < 0) {
    const int error = errno;
    struct stat info;
    if (fstatat(directory, name.c_str(), &info, AT_SYMLINK_NOFOLLOW) == 0 &&
        S_ISLNK(info.st_mode)) {
      return SymlinkRefused(path, root);
    }
    return absl::ErrnoToStatus(error, absl::StrCat("cannot open '", path, "'"));
  }
  absl::Cleanup close_file = [fd] { close(fd); };
  struct stat info;
  if (fstat(fd, &info) != 0) {
    const int error = errno;
    return absl::ErrnoToStatus(error, absl::StrCat("cannot inspect '", path, "'"));
  }
  if (!S_ISREG(info.st_mode)) {
    return absl::FailedPreconditionError(absl::StrCat("'", path, "' is not a regular file"));
  }
  if ((flags & O_NONBLOCK) == 0 && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0) {
    const int error = errno;
    return absl::ErrnoToStatus(error, absl::StrCat("cannot set '", path, "' to blocking"));
  }
  std::move(close_file).Cancel();
  return fd;
}

}  // namespace vernier::scheduler
