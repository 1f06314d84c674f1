#include "scheduler/local/job_dir_handover.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"

namespace vernier::scheduler {
namespace {

namespace fs = std::filesystem;

constexpr int kDeepest = 64;

// Hands over the regular file `name` in `directory_fd` if the server owns
// it. A file that vanished meanwhile is fine.
absl::Status HandOverFile(int directory_fd, const char* name, uid_t server_uid,
                          const TrialUser& user, const std::string& shown) {
  const int fd = openat(directory_fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return absl::OkStatus();
    return absl::ErrnoToStatus(errno, absl::StrCat("cannot open '", shown, "'"));
  }
  absl::Cleanup close_file = [fd] { close(fd); };
  struct stat info = {};
  if (fstat(fd, &info) != 0)
    return absl::ErrnoToStatus(errno, absl::StrCat("cannot stat '", shown, "'"));
  if (!S_ISREG(info.st_mode) || info.st_uid != server_uid || info.st_nlink != 1) {
    return absl::OkStatus();
  }
  if (fchownat(fd, "", user.uid, user.gid, AT_EMPTY_PATH) != 0) {
    return absl::ErrnoToStatus(errno, absl::StrCat("cannot give '", shown, "' to ", user.name));
  }
  return absl::OkStatus();
}

// Hands over the open directory `fd` (whose path is `shown`) and what the
// server owns beneath it.
absl::Status HandOverDirectory(int fd, const std::string& shown, uid_t server_uid,
                               const TrialUser& user, int depth) {
  struct stat info = {};
  if (fstat(fd, &info) != 0)
    return absl::ErrnoToStatus(errno, absl::StrCat("cannot stat '", shown, "'"));
  if (info.st_uid == server_uid && fchown(fd, user.uid, user.gid) != 0) {
    return absl::ErrnoToStatus(errno, absl::StrCat("cannot give '", shown, "' to ", user.name));
  }
  if (depth >= kDeepest) return absl::OkStatus();
  // The names first, the listing closed before the next level is visited.
  std::vector<std::string> names;
  {
    const int listing_fd = dup(fd);
    if (listing_fd < 0)
      return absl::ErrnoToStatus(errno, absl::StrCat("cannot list '", shown, "'"));
    DIR* listing = fdopendir(listing_fd);
    if (listing == nullptr) {
      const int error = errno;
      close(listing_fd);
      return absl::ErrnoToStatus(error, absl::StrCat("cannot list '", shown, "'"));
    }
    while (const dirent* entry = readdir(listing)) {
      if (std::strcmp(entry->d_name, ".") == 0 || std::strcmp(entry->d_name, "..") == 0) continue;
      names.emplace_back(entry->d_name);
    }
    closedir(listing);
  }
  for (const std::string& name : names) {
    const std::string child_shown = absl::StrCat(shown, "/", name);
    struct stat child_info = {};
    if (fstatat(fd, name.c_str(), &child_info, AT_SYMLINK_NOFOLLOW) != 0) {
      if (errno == ENOENT) continue;
      return absl::ErrnoToStatus(errno, absl::StrCat("cannot stat '", child_shown, "'"));
    }
    if (S_ISREG(child_info.st_mode)) {
      if (child_info.st_uid != server_uid) continue;
      if (absl::Status given = HandOverFile(fd, name.c_str(), server_uid, user, child_shown);
          !given.ok()) {
        return given;
      }
      continue;
    }
    if (!S_ISDIR(child_info.st_mode)) continue;
    const int child = openat(fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (child < 0) {
      // Gone, or replaced by a link or a file since the fstatat: not ours.
      if (errno == ENOENT || errno == ELOOP || errno == ENOTDIR) continue;
      return absl::ErrnoToStatus(errno, absl::StrCat("cannot open '", child_shown, "'"));
    }
    absl::Cleanup close_child = [child] { close(child); };
    if (absl::Status given = HandOverDirectory(child, child_shown, server_uid, user, depth + 1);
        !given.ok()) {
      return given;
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status HandOverJobDir(const std::string& job_dir, uid_t server_uid, const TrialUser& user) {
  const int fd = open(job_dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    return absl::ErrnoToStatus(
        errno, absl::StrCat("cannot open the job dir '", job_dir, "' to give it to ", user.name));
  }
  absl::Cleanup close_job_dir = [fd] { close(fd); };
  absl::Status given = HandOverDirectory(fd, job_dir, server_uid, user, 0);
  if (!given.ok()) {
    return absl::Status(given.code(), absl::StrCat("giving the job dir '", job_dir, "' to ",
                                                   user.name, ": ", given.message()));
  }
  return absl::OkStatus();
}

absl::Status CheckJobDirAncestors(const std::string& job_dir, uid_t server_uid) {
  const fs::path path = fs::path(job_dir).lexically_normal();
  if (!path.is_absolute()) {
    return absl::InvalidArgumentError(absl::StrCat("job dir '", job_dir, "' is not absolute"));
  }
  int fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return absl::ErrnoToStatus(errno, "cannot open /");
  absl::Cleanup close_last = [&fd] { close(fd); };
  fs::path reached = "/";
  const auto refuse = [&](absl::string_view why) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the folder '", reached.string(), "' above the job dir '", job_dir, "' ", why,
        ": with --trial-user only the server may change the folders above a job dir (use a job "
        "dir under the data directory's jobs/, or one whose folders above are root's)"));
  };
  std::vector<fs::path> components(path.begin(), path.end());
  // The job dir itself is left out: it is the trial user's.
  if (!components.empty()) components.pop_back();
  for (const fs::path& component : components) {
    if (component != "/") {
      const int child =
          openat(fd, component.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (child < 0) {
        if (errno == ENOENT) return absl::OkStatus();  // the server makes the rest
        reached /= component;
        if (errno == ELOOP || errno == ENOTDIR) return refuse("is a symbolic link or no folder");
        return absl::ErrnoToStatus(errno, absl::StrCat("cannot open '", reached.string(), "'"));
      }
      close(fd);
      fd = child;
      reached /= component;
    }
    struct stat info = {};
    if (fstat(fd, &info) != 0) {
      return absl::ErrnoToStatus(errno, absl::StrCat("cannot stat '", reached.string(), "'"));
    }
    if (info.st_uid != server_uid) {
      return refuse(absl::StrCat("belongs to uid ", info.st_uid));
    }
    if ((info.st_mode & (S_IWGRP | S_IWOTH)) != 0 && (info.st_mode & S_ISVTX) == 0) {
      return refuse(absl::StrFormat("is writable by others (mode %04o)", info.st_mode & 07777));
    }
  }
  return absl::OkStatus();
}

}  // namespace vernier::scheduler
