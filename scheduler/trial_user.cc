#include "scheduler/trial_user.h"

#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/status_macros.h"

namespace vernier::scheduler {

absl::StatusOr<TrialUser> TrialUser::Lookup(const std::string& name, uid_t server_uid) {
  if (server_uid != 0) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "--trial-user %s needs the server to run as root (it runs as uid %d): only root can start "
        "trainers as another user; run `vernier serve` as root, or without --trial-user",
        name, server_uid));
  }
  if (name.empty()) return absl::InvalidArgumentError("--trial-user: the user name is empty");
  long buffer_size = sysconf(_SC_GETPW_R_SIZE_MAX);
  if (buffer_size <= 0) buffer_size = 16384;
  std::vector<char> buffer(static_cast<size_t>(buffer_size));
  struct passwd entry = {};
  struct passwd* found = nullptr;
  int error;
  while ((error = getpwnam_r(name.c_str(), &entry, buffer.data(), buffer.size(), &found)) ==
         ERANGE) {
    buffer.resize(buffer.size() * 2);
  }
  if (found == nullptr) {
    if (error != 0 && error != ENOENT && error != ESRCH) {
      return absl::ErrnoToStatus(error, absl::StrCat("--trial-user ", name, ": cannot look it up"));
    }
    return absl::NotFoundError(absl::StrFormat(
        "--trial-user %s: no such user on this machine; create one for the trainers (useradd "
        "--system --create-home %s) or name another",
        name, name));
  }
  if (entry.pw_uid == 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "--trial-user %s is root (uid 0): its trainers could read the data directory and its "
        "tokens; name an unprivileged user",
        name));
  }
  TrialUser user;
  user.name = name;
  user.uid = entry.pw_uid;
  user.gid = entry.pw_gid;
  user.home = entry.pw_dir != nullptr ? entry.pw_dir : "/";
  int count = 16;
  std::vector<gid_t> groups(static_cast<size_t>(count));
  while (getgrouplist(name.c_str(), user.gid, groups.data(), &count) < 0) {
    groups.resize(static_cast<size_t>(count) + 16);
    count = static_cast<int>(groups.size());
  }
  groups.resize(static_cast<size_t>(count));
  if (std::find(groups.begin(), groups.end(), 0) != groups.end()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "--trial-user %s is in group 0 (root's): its trainers could read what that group may; "
        "name a user outside it",
        name));
  }
  user.groups = std::move(groups);
  return user;
}

absl::Status TrialUser::CheckCanEnter(const std::string& directory) const {
  std::filesystem::path folder = std::filesystem::path(directory).lexically_normal();
  std::vector<std::filesystem::path> chain;
  for (std::filesystem::path at = folder; !at.empty(); at = at.parent_path()) {
    chain.push_back(at);
    if (at == at.root_path() || at.parent_path() == at) break;
  }
  std::reverse(chain.begin(), chain.end());
  for (const std::filesystem::path& at : chain) {
    struct stat info = {};
    if (stat(at.c_str(), &info) != 0) {
      return absl::ErrnoToStatus(errno, absl::StrCat("--trial-user ", name, ": ", at.string()));
    }
    if ((info.st_mode & BitFor(info.st_uid, info.st_gid, S_IXUSR, S_IXGRP, S_IXOTH)) == 0) {
      return absl::FailedPreconditionError(absl::StrFormat(
          "--trial-user %s cannot enter %s (mode %04o, owner uid %d, group gid %d) on the way to "
          "%s: give it execute permission there (chmod o+x %s)",
          name, at.string(), info.st_mode & 07777, info.st_uid, info.st_gid, directory,
          at.string()));
    }
  }
  return absl::OkStatus();
}

absl::Status TrialUser::CheckCanRun(const std::string& path) const {
  const std::filesystem::path program = std::filesystem::path(path).lexically_normal();
  VERNIER_RETURN_IF_ERROR(CheckCanEnter(program.parent_path().string()));
  struct stat info = {};
  if (stat(program.c_str(), &info) != 0) {
    return absl::ErrnoToStatus(errno, absl::StrCat("--trial-user ", name, ": ", program.string()));
  }
  if ((info.st_mode & BitFor(info.st_uid, info.st_gid, S_IXUSR, S_IXGRP, S_IXOTH)) == 0) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "--trial-user %s may not execute %s (mode %04o, owner uid %d, group gid %d): chmod o+x %s",
        name, program.string(), info.st_mode & 07777, info.st_uid, info.st_gid, program.string()));
  }
  return absl::OkStatus();
}

mode_t TrialUser::BitFor(uid_t owner, gid_t group, mode_t owner_bit, mode_t group_bit,
                         mode_t other_bit) const {
  if (owner == uid) return owner_bit;
  if (std::find(groups.begin(), groups.end(), group) != groups.end()) return group_bit;
  return other_bit;
}

}  // namespace vernier::scheduler
