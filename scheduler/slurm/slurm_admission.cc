#include "scheduler/slurm/slurm_admission.h"

namespace vernier::scheduler {

SlurmAdmission::SlurmAdmission(SlurmBackend& backend, PortRange ports,
                               std::function<bool(int)> usable, int port_offset)
    : backend_(backend), ports_({}, ports, std::move(usable), port_offset) {}

absl::Status SlurmAdmission::CheckCapacity(const std::vector<v1::ReplicaSpec>& replicas,
                                           const GangOwner& /*owner*/) {
  std::vector<int> gpus_per_replica;
  gpus_per_replica.reserve(replicas.size());
  for (const v1::ReplicaSpec& replica : replicas) gpus_per_replica.push_back(replica.gpu_count());
  return backend_.CheckCapacity(gpus_per_replica);
}

absl::StatusOr<GangTicket> SlurmAdmission::Request(const std::vector<int>& gpus_per_replica,
                                                   const GangOwner& owner) {
  return ports_.Request(std::vector<int>(gpus_per_replica.size(), 0), owner);
}

absl::StatusOr<GangTicket> SlurmAdmission::Restore(const v1::TrialRun& run,
                                                   const GangOwner& owner) {
  v1::TrialRun ports_only = run;
  for (v1::ReplicaStatus& replica : *ports_only.mutable_replicas()) replica.clear_gpus();
  return ports_.Restore(ports_only, owner);
}

}  // namespace vernier::scheduler
