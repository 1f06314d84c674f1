#ifndef VERNIER_SCHEDULER_TRIAL_USER_H_
#define VERNIER_SCHEDULER_TRIAL_USER_H_

#include <sys/types.h>

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace vernier::scheduler {

// Why `vernier serve --trial-user` and `--scheduler slurm` exclude each other.
inline constexpr char kTrialUserNotOnSlurm[] =
    "--trial-user needs --scheduler local: on Slurm every trial is an sbatch job of the user "
    "who runs the server, and Vernier does not use sbatch --uid; run the Slurm server as an "
    "unprivileged user of its own instead (docs/security.md, \"Trainers as another user\")";

// The unprivileged user that trainers and their agents run as under
// `vernier serve --trial-user USER` (docs/security.md, "Trainers as another
// user"): the server, root, keeps its data directory (database, tokens) to
// itself, and each replica switches to this user's uid, gid and
// supplementary groups before it runs anything.
struct TrialUser {
  std::string name;
  uid_t uid = 0;
  gid_t gid = 0;
  // Every group the user is in (its primary one included), as initgroups
  // would set them.
  std::vector<gid_t> groups;
  std::string home;

  // The user `name` as the system knows it. FAILED_PRECONDITION unless this
  // server runs as root (`server_uid` 0), which alone can start processes
  // as another user; NOT_FOUND for a user that does not exist;
  // INVALID_ARGUMENT for root itself (uid 0), which would separate nothing.
  // Each names the flag --trial-user.
  static absl::StatusOr<TrialUser> Lookup(const std::string& name, uid_t server_uid);

  // Whether this user may enter `directory` and every folder above it, by
  // their mode bits (owner, group, others; ACLs are not read).
  // FAILED_PRECONDITION naming the first folder it may not enter, its mode
  // and owner.
  absl::Status CheckCanEnter(const std::string& directory) const;
  // Whether this user may run the program `path`: enter its folder (as
  // above) and execute it. FAILED_PRECONDITION naming what stops it.
  absl::Status CheckCanRun(const std::string& path) const;

 private:
  // The permission bit of `info`'s mode that applies to this user among
  // `owner_bit`, `group_bit` and `other_bit`.
  mode_t BitFor(uid_t owner, gid_t group, mode_t owner_bit, mode_t group_bit,
                mode_t other_bit) const;
};

}  // namespace vernier::scheduler

#endif  // VERNIER_SCHEDULER_TRIAL_USER_H_
