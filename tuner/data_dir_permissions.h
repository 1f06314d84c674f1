#ifndef VERNIER_TUNER_DATA_DIR_PERMISSIONS_H_
#define VERNIER_TUNER_DATA_DIR_PERMISSIONS_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "scheduler/trial_user.h"

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
  // may read or write it (execute alone, which --trial-user sets, lets them
  // reach only what they know the name of and its own mode allows), and one
  // for its SQLite database (vernier.db) if they have any access to that:
  // each names the path, its mode and the chmod that closes it. Empty when
  // neither is open (or they do not exist).
  static std::vector<std::string> Warnings(const std::string& data_dir);

  // vernier serve --trial-user: the data directory and its jobs/ folder
  // become mode 0711, so that `user` may pass through them to the jobs'
  // folders (DATA_DIR/jobs/JOB, which the local backend gives it) but list
  // and read nothing else: the database, its WAL and the token files stay
  // 0600. FAILED_PRECONDITION when a folder above the data directory keeps
  // the user out, naming it.
  static absl::Status OpenJobsTo(const std::string& data_dir, const scheduler::TrialUser& user);
};

}  // namespace vernier::tuner

#endif  // VERNIER_TUNER_DATA_DIR_PERMISSIONS_H_
