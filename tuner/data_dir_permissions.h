#ifndef VERNIER_TUNER_DATA_DIR_PERMISSIONS_H_
#define VERNIER_TUNER_DATA_DIR_PERMISSIONS_H_

#include <string>
#include <vector>

namespace vernier::tuner {

// Who may read the data directory: it holds the database (jobs' commands
// and environments, the audit log), jobs' folders and logs, and tokens, so
// it is the server's user's only.
class DataDirPermissions {
 public:
  // The umask `vernier serve` sets before it creates anything: directories
  // 0700, files 0600 (the database, its WAL and shared memory, jobs'
  // folders and logs, token files). Its trainers inherit it.
  static constexpr unsigned kServerUmask = 0077;

  // One warning for the data directory `data_dir` if others than its owner
  // have any access to it, and one for its SQLite database (vernier.db) if
  // they have any to that: each names the path, its mode and the chmod that
  // closes it. Empty when neither is open (or they do not exist).
  static std::vector<std::string> Warnings(const std::string& data_dir);
};

}  // namespace vernier::tuner

#endif  // VERNIER_TUNER_DATA_DIR_PERMISSIONS_H_
