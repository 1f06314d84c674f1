#ifndef VERNIER_SCHEDULER_SLURM_SLURM_ADMISSION_H_
#define VERNIER_SCHEDULER_SLURM_SLURM_ADMISSION_H_

#include <functional>
#include <vector>

#include "scheduler/admission.h"
#include "scheduler/local/local_admission.h"
#include "scheduler/port_allocator.h"
#include "scheduler/slurm/slurm_backend.h"

namespace vernier::scheduler {

// Admission under Slurm: Slurm grants the GPUs, all or nothing, when it
// starts the trial's batch job (a trial that does not fit waits in Slurm's
// queue), so every gang is granted at once, with ports only; capacity is
// what the partition's largest node has (SlurmBackend::CheckCapacity).
// Slurm's own fair share orders its queue: the owner only picks the Slurm
// account and QoS of the trial's batch job (SbatchOptions), so here it is
// ignored.
class SlurmAdmission : public Admission {
 public:
  SlurmAdmission(SlurmBackend& backend, PortRange ports, std::function<bool(int)> usable,
                 int port_offset = 0);

  absl::Status CheckCapacity(const std::vector<v1::ReplicaSpec>& replicas,
                             const GangOwner& owner) override;
  bool GrantsGpus() const override { return false; }
  absl::StatusOr<GangTicket> Request(const std::vector<int>& gpus_per_replica,
                                     const GangOwner& owner) override;
  void Schedule() override {}
  bool IsGranted(GangTicket ticket) override { return ports_.IsGranted(ticket); }
  absl::StatusOr<GangGrant> Grant(GangTicket ticket) override { return ports_.Grant(ticket); }
  // The ports the run's replicas hold; their GPUs are Slurm's.
  absl::StatusOr<GangTicket> Restore(const v1::TrialRun& run, const GangOwner& owner) override;
  void Release(GangTicket ticket) override { ports_.Release(ticket); }
  // Trials wait in Slurm's queue (squeue), not here.
  std::optional<GangWait> Waiting(std::string_view) override { return std::nullopt; }

 private:
  SlurmBackend& backend_;
  // Without GPUs: grants every gang at once, and its ports.
  LocalAdmission ports_;
};

}  // namespace vernier::scheduler

#endif  // VERNIER_SCHEDULER_SLURM_SLURM_ADMISSION_H_
