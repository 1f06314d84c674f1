#ifndef VERNIER_TUNER_BACKEND_FACTORY_H_
#define VERNIER_TUNER_BACKEND_FACTORY_H_

#include <memory>
#include <optional>

#include "absl/status/statusor.h"
#include "scheduler/admission.h"
#include "scheduler/backend.h"
#include "scheduler/trial_user.h"
#include "tuner/server.h"

namespace vernier::tuner {

// A scheduler backend and the admission that decides when its trials start.
struct SchedulerParts {
  std::unique_ptr<scheduler::Backend> backend;
  // Refers to `backend`; destroyed first.
  std::unique_ptr<scheduler::Admission> admission;
};

// What `options.scheduler` names: the local backend with a LocalAdmission
// over `options.gpus` and `options.replica_ports`, or the Slurm backend with
// a SlurmAdmission once `sinfo` answers (so that a server that cannot reach
// Slurm says so at start, not at the first trial).
// With a `trial_user` (vernier serve --trial-user) the local backend runs
// replicas as that user; the Slurm backend cannot (INVALID_ARGUMENT).
absl::StatusOr<SchedulerParts> MakeBackend(
    const ServerOptions& options, const std::optional<scheduler::TrialUser>& trial_user = {});

}  // namespace vernier::tuner

#endif  // VERNIER_TUNER_BACKEND_FACTORY_H_
