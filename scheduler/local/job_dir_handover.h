#ifndef VERNIER_SCHEDULER_LOCAL_JOB_DIR_HANDOVER_H_
#define VERNIER_SCHEDULER_LOCAL_JOB_DIR_HANDOVER_H_

#include <sys/types.h>

#include <string>

#include "absl/status/status.h"
#include "scheduler/trial_user.h"

namespace vernier::scheduler {

// Gives `user` (vernier serve --trial-user) what the server made for it in
// the job dir `job_dir`: the job dir itself and every directory and regular
// file beneath it that `server_uid` owns (trial folders, logs, the agents'
// credential files, a packaged trainer's snapshot) become the user's, so
// that its trainers and agents can work there. Never follows a symbolic
// link, at the job dir or below it: each directory is opened relative to
// its parent's descriptor with O_NOFOLLOW and each entry changed through a
// descriptor of its own, so a link or a renamed folder planted by a trainer
// redirects nothing. A regular file with more than one hard link is left
// alone (it may be another file's other name). Files others own (what
// trainers wrote) stay as they are; directories deeper than 64 levels are
// not visited. An error names the job dir.
absl::Status HandOverJobDir(const std::string& job_dir, uid_t server_uid, const TrialUser& user);

// Whether only the server can change the folders above `job_dir` (those
// that exist): each must be owned by `server_uid` and writable by nobody
// else unless it has the sticky bit (as /tmp), and none may be a symbolic
// link. Otherwise a trainer of the trial user could swap a folder above a
// job dir for a link between the server's checks and its writes, and have
// it give away (or write into) a folder that is not the job's.
// FAILED_PRECONDITION naming the folder and the reason.
absl::Status CheckJobDirAncestors(const std::string& job_dir, uid_t server_uid);

}  // namespace vernier::scheduler

#endif  // VERNIER_SCHEDULER_LOCAL_JOB_DIR_HANDOVER_H_
