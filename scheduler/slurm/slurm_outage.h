#ifndef VERNIER_SCHEDULER_SLURM_SLURM_OUTAGE_H_
#define VERNIER_SCHEDULER_SLURM_SLURM_OUTAGE_H_

#include <cstdint>
#include <mutex>
#include <optional>

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace vernier::scheduler {

// Whether slurmctld is away (restarting, down, overloaded), as the Slurm
// commands show: the first command that fails with a transient error
// (IsTransientBackendError) starts an outage, the next one that answers ends
// it. Logs each outage twice, at its start (a warning with the first error)
// and at its end (with its length and how many commands failed), never once
// per command. Thread-safe.
class SlurmOutage {
 public:
  // A Slurm command ended with `status` at `now`. Permanent errors change
  // nothing.
  void Observe(const absl::Status& status, absl::Time now);

  // When the outage under way began; nullopt while slurmctld answers.
  std::optional<absl::Time> Since() const;
  // When the last outage ended; InfinitePast when none has.
  absl::Time LastEnded() const;

 private:
  mutable std::mutex mutex_;
  // Guarded by mutex_.
  std::optional<absl::Time> since_;
  int64_t failed_commands_ = 0;
  absl::Time last_ended_ = absl::InfinitePast();
};

}  // namespace vernier::scheduler

#endif  // VERNIER_SCHEDULER_SLURM_SLURM_OUTAGE_H_
