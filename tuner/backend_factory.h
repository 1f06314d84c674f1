#ifndef VERNIER_TUNER_BACKEND_FACTORY_H_
#define VERNIER_TUNER_BACKEND_FACTORY_H_

#include <memory>

#include "absl/status/statusor.h"
#include "scheduler/backend.h"
#include "tuner/server.h"

namespace vernier::tuner {

// The scheduler backend that `options.scheduler` names: the local backend,
// or the Slurm backend once `sinfo` answers (so that a server that cannot
// reach Slurm says so at start, not at the first trial).
absl::StatusOr<std::unique_ptr<scheduler::Backend>> MakeBackend(const ServerOptions& options);

}  // namespace vernier::tuner

#endif  // VERNIER_TUNER_BACKEND_FACTORY_H_
