#include "scheduler/slurm/slurm_outage.h"

#include <string>

#include "scheduler/transient_backend_error.h"
#include "spdlog/spdlog.h"

namespace vernier::scheduler {

void SlurmOutage::Observe(const absl::Status& status, absl::Time now) {
  if (!status.ok() && !IsTransientBackendError(status)) return;
  std::lock_guard lock(mutex_);
  if (!status.ok()) {
    ++failed_commands_;
    if (since_.has_value()) return;
    since_ = now;
    failed_commands_ = 1;
    spdlog::warn(
        "Slurm is unreachable since {}: {}; trials keep running in their Slurm jobs, and what "
        "needs slurmctld (submitting, describing, cancelling trials) waits and retries until it "
        "is back (trials fail only after --slurm-outage-limit)",
        absl::FormatTime(absl::RFC3339_sec, now, absl::UTCTimeZone()),
        std::string(status.message()));
    return;
  }
  if (!since_.has_value()) return;
  spdlog::warn("Slurm is back after {} ({} commands failed meanwhile)",
               absl::FormatDuration(absl::Trunc(now - *since_, absl::Milliseconds(100))),
               failed_commands_);
  since_.reset();
  last_ended_ = now;
}

std::optional<absl::Time> SlurmOutage::Since() const {
  std::lock_guard lock(mutex_);
  return since_;
}

absl::Time SlurmOutage::LastEnded() const {
  std::lock_guard lock(mutex_);
  return last_ended_;
}

}  // namespace vernier::scheduler
