#ifndef VERNIER_TUNER_CLI_JOB_PROGRESS_H_
#define VERNIER_TUNER_CLI_JOB_PROGRESS_H_

#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "vernier/v1/job_service.pb.h"

namespace vernier::cli {

// What `vernier jobs submit --wait` (and `--stream-logs`) prints while a job
// runs, from successive snapshots of it (GetJob): a line for each trial as
// it ends, in id order, with its state, objective and the best so far,
//
//   trial 3 SUCCEEDED  accuracy=0.9312 at step 10  best 0.9312 (trial 3)
//
// (with several objectives, every metric and the Pareto front so far, as
// ListOptimalTrials ranks it:
//
//   trial 3 SUCCEEDED  accuracy=0.93 latency=12 at step 10  Pareto front: trials 1, 3 (2)
//
// )
// and a progress line whenever the counts change,
//
//   progress: 5/12 trials ended, 2 running, 1m03s elapsed, about 1m30s left
//
// A failed trial's line is followed by its failure reason, every line of
// it (a traceback's) indented by two spaces, when the caller has it. While
// the job is PREPARING the progress line says that its packages are being
// installed. The elapsed time runs from the job's submission, so it never
// goes back when the job starts.
//
// Copies of a resumed job's trials are not news and are left out. Pure:
// the time comes with each snapshot.
class JobProgress {
 public:
  // Lines for this snapshot, each without its newline. `reasons`: failed
  // trials' status_reason by trial id (those it lacks get no reason).
  std::vector<std::string> Update(const v1::GetJobResponse& snapshot, absl::Time now,
                                  const std::map<std::string, std::string>& reasons = {});

 private:
  std::string ProgressLine(const v1::GetJobResponse& snapshot, absl::Time now) const;

  std::set<std::string> reported_;
  std::string last_counts_;
};

}  // namespace vernier::cli

#endif  // VERNIER_TUNER_CLI_JOB_PROGRESS_H_
