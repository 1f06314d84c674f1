#ifndef VERNIER_SCHEDULER_LOCAL_LOCAL_HANDLE_H_
#define VERNIER_SCHEDULER_LOCAL_LOCAL_HANDLE_H_

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace vernier::scheduler {

// Names one process across PID reuse: a PID is only ours while the process
// behind it has the start time we saw when we started it.
struct ProcessIdentity {
  pid_t pid = 0;
  uint64_t start_time_ticks = 0;

  bool operator==(const ProcessIdentity&) const = default;
  auto operator<=>(const ProcessIdentity&) const = default;
};

// What the local backend stores in TrialRun.backend_handle so that a later
// server process can find the replicas again:
//   local:PID@START,PID@START;job=JOB_ID
// with one PID@START per replica, in replica order.
struct LocalHandle {
  std::vector<ProcessIdentity> replicas;
  // For log lines about the trial; a TrialRun does not carry it.
  std::string job_id;

  std::string Format() const;
  // InvalidArgument naming the handle when it is not one Format() wrote.
  static absl::StatusOr<LocalHandle> Parse(absl::string_view handle);
};

}  // namespace vernier::scheduler

#endif  // VERNIER_SCHEDULER_LOCAL_LOCAL_HANDLE_H_
