#include "tuner/backend_factory.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "scheduler/local/local_backend.h"
#include "scheduler/slurm/slurm_backend.h"
#include "spdlog/spdlog.h"

namespace vernier::tuner {

absl::StatusOr<std::unique_ptr<scheduler::Backend>> MakeBackend(const ServerOptions& options) {
  if (options.scheduler == "local") return std::make_unique<scheduler::LocalBackend>();
  if (options.scheduler != "slurm") {
    return absl::InvalidArgumentError(
        absl::StrCat("scheduler \"", options.scheduler, "\" is not local or slurm"));
  }
  scheduler::SlurmBackendOptions slurm;
  slurm.sbatch.partition = options.slurm_partition;
  const scheduler::SlurmCommands commands(slurm.commands);
  absl::StatusOr<std::vector<scheduler::SlurmNodeInfo>> nodes =
      commands.Nodes(options.slurm_partition);
  if (!nodes.ok()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "--scheduler slurm: cannot reach Slurm (is SLURM_CONF right and slurmctld up?): ",
        nodes.status().message()));
  }
  spdlog::info("scheduler slurm: partition {}, nodes {}",
               options.slurm_partition.empty() ? "(default)" : options.slurm_partition,
               absl::StrJoin(*nodes, ", ", [](std::string* out, const auto& node) {
                 absl::StrAppend(out, node.name, " (", node.gpus, " GPUs, ", node.state, ")");
               }));
  return std::make_unique<scheduler::SlurmBackend>(std::move(slurm));
}

}  // namespace vernier::tuner
