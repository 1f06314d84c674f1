#include "tuner/data_dir_permissions.h"

#include <sys/stat.h>

#include "absl/strings/str_format.h"

namespace vernier::tuner {

std::vector<std::string> DataDirPermissions::Warnings(const std::string& data_dir) {
  std::vector<std::string> warnings;
  struct stat info = {};
  if (stat(data_dir.c_str(), &info) == 0 && (info.st_mode & 0077) != 0) {
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

}  // namespace vernier::tuner
