#include "tuner/backend_factory.h"

#include <random>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "scheduler/local/local_admission.h"
#include "scheduler/local/local_backend.h"
#include "scheduler/port_probe.h"
#include "scheduler/slurm/slurm_admission.h"
#include "scheduler/slurm/slurm_backend.h"
#include "spdlog/spdlog.h"

namespace vernier::tuner {
namespace {

// Servers of one machine that start at random offsets rarely pick the same
// port at the same time.
int RandomPortOffset() { return static_cast<int>(std::random_device{}() % 65536); }

}  // namespace

absl::StatusOr<SchedulerParts> MakeBackend(const ServerOptions& options,
                                           const std::optional<scheduler::TrialUser>& trial_user) {
  SchedulerParts parts;
  if (options.scheduler == "local") {
    parts.backend = std::make_unique<scheduler::LocalBackend>(scheduler::LocalBackendOptions{
        .podman_path = options.podman_path, .trial_user = trial_user});
    parts.admission = std::make_unique<scheduler::LocalAdmission>(
        options.gpus, options.replica_ports, &scheduler::PortProbe::IsFree, RandomPortOffset(),
        options.gpu_share);
    return parts;
  }
  if (options.scheduler != "slurm") {
    return absl::InvalidArgumentError(
        absl::StrCat("scheduler \"", options.scheduler, "\" is not local or slurm"));
  }
  if (trial_user.has_value()) {
    return absl::InvalidArgumentError(scheduler::kTrialUserNotOnSlurm);
  }
  scheduler::SlurmBackendOptions slurm;
  slurm.sbatch.partition = options.slurm_partition;
  slurm.sbatch.accounts = options.slurm_accounts;
  slurm.sbatch.account_from_owner = options.slurm_account_from_owner;
  slurm.sbatch.qos = options.slurm_qos;
  slurm.sbatch.slurmctld_wait_limit = options.slurm_outage_limit;
  slurm.commands.timeout = absl::ToChronoMilliseconds(options.slurm_command_timeout);
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
  auto backend = std::make_unique<scheduler::SlurmBackend>(std::move(slurm));
  parts.admission = std::make_unique<scheduler::SlurmAdmission>(
      *backend, options.replica_ports, &scheduler::PortProbe::IsFree, RandomPortOffset());
  parts.backend = std::move(backend);
  return parts;
}

}  // namespace vernier::tuner
