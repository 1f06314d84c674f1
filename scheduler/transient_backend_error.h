#ifndef VERNIER_SCHEDULER_TRANSIENT_BACKEND_ERROR_H_
#define VERNIER_SCHEDULER_TRANSIENT_BACKEND_ERROR_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace vernier::scheduler {

// The one place that says which backend failures are transient: the
// cluster's controller (slurmctld) is away or too busy for a while, and the
// same call is expected to pass once it is back. SlurmCommands marks them
// where it reads a Slurm command's failure: the command could not reach
// slurmctld ("Unable to contact slurm controller", a socket timeout, a
// refused connection, "Slurm temporarily unable to accept job"), or it did
// not finish within --slurm-command-timeout. Everything else (a bad script,
// an unknown partition, a missing binary) is permanent. Transient failures
// never fail a trial or job: what needs the backend waits and retries, up to
// `vernier serve --slurm-outage-limit` (docs/slurm.md).
absl::Status MarkBackendTransient(absl::Status status);

// Whether a backend marked `status` transient.
bool IsTransientBackendError(const absl::Status& status);

// `status` with `prefix` before its message, its code and transient mark
// kept.
absl::Status PrefixBackendError(absl::string_view prefix, const absl::Status& status);

}  // namespace vernier::scheduler

#endif  // VERNIER_SCHEDULER_TRANSIENT_BACKEND_ERROR_H_
