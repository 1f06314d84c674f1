#ifndef VERNIER_TUNER_TRIAL_ATTEMPT_H_
#define VERNIER_TUNER_TRIAL_ATTEMPT_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "absl/time/time.h"
#include "scheduler/admission.h"

namespace vernier::tuner {

// A trial of a job: the key of everything the TrialRunSupervisor keeps about
// it.
struct TrialKey {
  std::string job_id;
  int64_t trial_id = 0;

  auto operator<=>(const TrialKey&) const = default;
};

// Where a trial's current attempt stands, as the supervisor sees it (the
// store holds the trial's and its run's states; this is what lives only in
// memory between passes).
//
//   kWaiting   --granted, launched-->        kRunning
//   kRunning   --replica failed, retries-->  kRetrying
//   kRetrying  --old replicas ended-->       kRelaunch
//   kRelaunch  --next attempt launched-->    kRunning (kWaiting without a grant)
//   kRunning   --trial ended or cancelled--> kEnding
//   kEnding    --replicas ended-->           kEnded
//   kEnded     --settled (nothing left)-->   (record dropped)
//
// kEnded is otherwise treated as kRunning: a trial whose outcome could not be
// stored after its replicas were ended is reconciled again.
enum class TrialAttemptState {
  // Its gang waits to be granted; nothing of it runs.
  kWaiting,
  // Submitted to the backend (or found running after a restart).
  kRunning,
  // A replica failed and a retry is due: the attempt's replicas are being
  // ended in the background.
  kRetrying,
  // The failed attempt's replicas ended: the next attempt starts at the next
  // pass, keeping the trial's GPUs and ports.
  kRelaunch,
  // The trial ended or is cancelled: its replicas are being ended in the
  // background.
  kEnding,
  // Its replicas were ended by a cancel.
  kEnded,
};

inline std::string_view TrialAttemptStateName(TrialAttemptState state) {
  switch (state) {
    case TrialAttemptState::kWaiting:
      return "waiting";
    case TrialAttemptState::kRunning:
      return "running";
    case TrialAttemptState::kRetrying:
      return "retrying";
    case TrialAttemptState::kRelaunch:
      return "relaunch";
    case TrialAttemptState::kEnding:
      return "ending";
    case TrialAttemptState::kEnded:
      return "ended";
  }
  return "unknown";
}

// Everything the supervisor remembers about one trial between passes.
struct TrialAttempt {
  TrialAttemptState state = TrialAttemptState::kRunning;
  // The attempt it runs, or launches next (0 first, then one per retry).
  int attempt = 0;
  // What the admission granted it (or queues for it); none before a
  // request, or when a restored run's grant could not be restored.
  std::optional<scheduler::GangTicket> ticket;
  // When its master was first seen gone while the trial still ran.
  std::optional<absl::Time> master_gone_since;
  // When each of its other replicas (by name, e.g. worker-1) was first seen
  // LOST (started by an earlier server, exit status unknown).
  std::map<std::string, absl::Time> lost_since;
  // A failure an agent reported (a non-master replica's, or a master's to be
  // retried), for the next pass to act on.
  std::optional<std::string> reported_failure;
  // The trial directory holding its agents' credential file (empty after a
  // restart: the credential is still deleted from the store).
  std::string credential_dir;

  // Whether its replicas are being ended in the background.
  bool being_ended() const {
    return state == TrialAttemptState::kEnding || state == TrialAttemptState::kRetrying;
  }
  // Whether it is between a failed attempt and the next.
  bool restarting() const {
    return state == TrialAttemptState::kRetrying || state == TrialAttemptState::kRelaunch;
  }
};

}  // namespace vernier::tuner

#endif  // VERNIER_TUNER_TRIAL_ATTEMPT_H_
