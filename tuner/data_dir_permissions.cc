#include "tuner/data_dir_permissions.h"

#include <sys/stat.h>

#include <cerrno>
#include <filesystem>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace vernier::tuner {

std::vector<std::string> DataDirPermissions::Warnings(const std::string& data_dir) {
  std::vector<std::string> warnings;
  struct stat info = {};
  if (stat(data_dir.c_str(), &info) == 0 && (info.st_mode & 0066) != 0) {
    warnings.push_back(absl::StrFormat(
        "the data directory %s is mode %04o: other users may read what it holds (the database, "
        "jobs' commands and environments, logs, tokens); chmod 700 %s",
        data_dir, info.st_mode & 07777, data_dir));
  }
  const std::string database = data_dir + "/vernier.db";
  if (stat(database.c_str(), &info) == 0 && (info.st_mode & 0077) != 0) {
    warnings.push_back(absl::StrFormat("%s is mode %04o: other users may read it; chmod 600 %s",
                                       database, info.st_mode & 07777, database));
  }
  return warnings;
}

absl::Status DataDirPermissions::OpenJobsTo(const std::string& data_dir,
                                            const scheduler::TrialUser& user) {
  const std::string jobs = data_dir + "/jobs";
  std::error_code error;
  std::filesystem::create_directories(jobs, error);
  if (error) {
    return absl::FailedPreconditionError(
        absl::StrFormat("cannot create the jobs' folder %s: %s", jobs, error.message()));
  }
  for (const std::string& folder : {data_dir, jobs}) {
    if (chmod(folder.c_str(), 0711) != 0) {
      return absl::ErrnoToStatus(
          errno, absl::StrCat("--trial-user ", user.name, ": cannot make ", folder, " mode 0711"));
    }
  }
  if (absl::Status reachable = user.CheckCanEnter(jobs); !reachable.ok()) {
    return absl::Status(
        reachable.code(),
        absl::StrCat(reachable.message(), ", or choose a --data-dir the trial user can reach"));
  }
  return absl::OkStatus();
}

}  // namespace vernier::tuner
