#ifndef VERNIER_SCHEDULER_LOCAL_SPAWN_REPLICA_H_
#define VERNIER_SCHEDULER_LOCAL_SPAWN_REPLICA_H_

#include <sys/types.h>

#include <string>

#include "absl/status/statusor.h"
#include "scheduler/backend.h"
#include "scheduler/trial_user.h"

namespace vernier::scheduler {

// Starts `launch` as a child of this process in a session (and process
// group) of its own, so that it outlives this process and can be signalled
// as a group:
// - argv[0] containing a '/' is a path (a relative one against this
//   process's working directory); otherwise it is looked up in the PATH of
//   the replica's environment, as execvp does;
// - the environment is this process's plus `launch.env`;
// - working_dir and the parent folder of log_path are created; stdout and
//   stderr are appended to log_path, stdin is /dev/null; below `job_dir`
//   (when given) they are created without following symbolic links
//   (scheduler/path_beneath.h): a link planted there fails the launch
//   naming it, and nothing is written through it;
// - signal dispositions and the signal mask start at their defaults
//   whatever this process set;
// - with a `user` (vernier serve --trial-user), the child takes its
//   supplementary groups, gid and uid before it enters working_dir, so the
//   program and everything it starts run as that user, with HOME, USER and
//   LOGNAME its own (and not the server's XDG_RUNTIME_DIR).
// Returns the child's PID once it runs the program (after exec), or an
// error naming the path and the reason when it could not; a child that
// failed is reaped before returning. The caller reaps a started child.
absl::StatusOr<pid_t> SpawnReplica(const ReplicaLaunch& launch, const std::string& job_dir = "",
                                   const TrialUser* user = nullptr);

}  // namespace vernier::scheduler

#endif  // VERNIER_SCHEDULER_LOCAL_SPAWN_REPLICA_H_
