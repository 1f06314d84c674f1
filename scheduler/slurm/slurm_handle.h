#ifndef VERNIER_SCHEDULER_SLURM_SLURM_HANDLE_H_
#define VERNIER_SCHEDULER_SLURM_SLURM_HANDLE_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace vernier::scheduler {

// What the Slurm backend stores in TrialRun.backend_handle, so that any
// later server process finds the trial's allocation again:
//   slurm:SLURM_JOB_ID;job=JOB_ID
struct SlurmHandle {
  std::string slurm_job_id;
  // For log lines about the trial; a TrialRun does not carry it.
  std::string job_id;

  std::string Format() const;
  // InvalidArgument naming the handle when it is not one Format() wrote.
  static absl::StatusOr<SlurmHandle> Parse(absl::string_view handle);
};

}  // namespace vernier::scheduler

#endif  // VERNIER_SCHEDULER_SLURM_SLURM_HANDLE_H_
