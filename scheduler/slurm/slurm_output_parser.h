#ifndef VERNIER_SCHEDULER_SLURM_SLURM_OUTPUT_PARSER_H_
#define VERNIER_SCHEDULER_SLURM_SLURM_OUTPUT_PARSER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace vernier::scheduler {

// One job as `scontrol show job -d -o JOBID` (or sacct) describes it.
struct SlurmJobInfo {
  std::string job_id;
  // JobState, e.g. PENDING, RUNNING, COMPLETING, COMPLETED, CANCELLED.
  std::string state;
  std::string reason;
  // From ExitCode=CODE:SIGNAL.
  int exit_code = 0;
  int term_signal = 0;
  // Where it runs; empty while pending.
  std::string node_list;
  // The GPUs granted (GRES IDX, the node's device indexes) while it runs.
  std::vector<int> gpus;
};

// One node as `sinfo -h -N -o %N|%G|%t` lists it.
struct SlurmNodeInfo {
  std::string name;
  int gpus = 0;
  std::string state;
};

// Pure parsers of Slurm's command output; errors quote the text they could
// not read.

// The job id that `sbatch --parsable` printed ("123" or "123;cluster").
absl::StatusOr<std::string> ParseSbatchJobId(absl::string_view output);
// `scontrol show job -d -o JOBID`: one line of KEY=VALUE words.
absl::StatusOr<SlurmJobInfo> ParseScontrolJob(absl::string_view output);
// `sacct -n -P -X -o JobID,State,ExitCode,NodeList -j JOBID`; NotFound when
// it has no row for the job.
absl::StatusOr<SlurmJobInfo> ParseSacctJob(absl::string_view output);
// `sinfo -h -N -o %N|%G|%t`, one node per line (a node in several
// partitions may repeat).
absl::StatusOr<std::vector<SlurmNodeInfo>> ParseSinfoNodes(absl::string_view output);
// How many GPUs a Gres= value holds: "gpu:4", "gpu:a100:2(S:0-1),gpu:v100:2",
// "(null)".
absl::StatusOr<int> ParseGresGpuCount(absl::string_view gres);
// An index list as in IDX:0-2,5 or CUDA_VISIBLE_DEVICES ("0,1"); "" is none.
absl::StatusOr<std::vector<int>> ParseIndexList(absl::string_view text);
// Whether a job in `state` will not run again (COMPLETED, FAILED, ...).
bool IsEndedJobState(absl::string_view state);
// Whether a job in `state` waits for its allocation (PENDING, ...).
bool IsWaitingJobState(absl::string_view state);

}  // namespace vernier::scheduler

#endif  // VERNIER_SCHEDULER_SLURM_SLURM_OUTPUT_PARSER_H_
