#ifndef VERNIER_SCHEDULER_LOCAL_LOCAL_ADMISSION_H_
#define VERNIER_SCHEDULER_LOCAL_LOCAL_ADMISSION_H_

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "scheduler/admission.h"
#include "scheduler/fair_share_queue.h"
#include "scheduler/gang_allocator.h"
#include "scheduler/gpu_share_policy.h"
#include "scheduler/port_allocator.h"

namespace vernier::scheduler {

// Admission for trials whose replicas all run on this machine (the local
// backend): GPUs come from a GangAllocator over this machine's devices (one
// node), all or nothing per trial; ports from a PortAllocator. A gang that
// asks for no GPU is granted at once. Waiting gangs start in the order of a
// FairShareQueue (each user's weighted share, quotas per user and per job;
// one user's gangs first come, first served); the next one waits until it
// fits, and no later gang passes it (on one node that would only delay it).
// Thread-safe.
class LocalAdmission : public Admission {
 public:
  // `gpus`: device indexes (as CUDA_VISIBLE_DEVICES names them); `usable`:
  // whether another program leaves a port free (PortProbe::IsFree);
  // `port_offset`: where in the range the port search starts (see
  // PortAllocator).
  // `share`: how users and jobs share the GPUs.
  LocalAdmission(std::vector<int> gpus, PortRange ports, std::function<bool(int)> usable,
                 int port_offset = 0, GpuSharePolicy share = {});

  // Each replica's GPUs and the trial's total must fit this machine's, and
  // the trial's total the owner's quotas, since a trial that never fits
  // would wait forever.
  absl::Status CheckCapacity(const std::vector<v1::ReplicaSpec>& replicas,
                             const GangOwner& owner) override;
  bool GrantsGpus() const override { return !gpus_.empty(); }
  absl::StatusOr<GangTicket> Request(const std::vector<int>& gpus_per_replica,
                                     const GangOwner& owner) override;
  void Schedule() override;
  bool IsGranted(GangTicket ticket) override;
  absl::StatusOr<GangGrant> Grant(GangTicket ticket) override;
  absl::StatusOr<GangTicket> Restore(const v1::TrialRun& run, const GangOwner& owner) override;
  void Release(GangTicket ticket) override;
  std::optional<GangWait> Waiting(std::string_view job_id) override;

  int free_gpus();
  int held_ports();

 private:
  struct Gang {
    int replicas = 0;
    std::vector<int> gpus_per_replica;
    bool granted = false;
    // Where its GPUs are, once granted; none for a gang without GPUs.
    std::optional<GangPlacement> placement;
  };
  // The gang allocator's and port allocator's name for a ticket.
  static std::string OwnerOf(GangTicket ticket);
  GangTicket NextTicket() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  const std::vector<int> gpus_;
  const std::function<bool(int)> usable_;
  absl::Mutex mutex_;
  GangAllocator gangs_ ABSL_GUARDED_BY(mutex_);
  // The gangs that hold or wait for GPUs, by ticket id.
  FairShareQueue queue_ ABSL_GUARDED_BY(mutex_);
  PortAllocator ports_ ABSL_GUARDED_BY(mutex_);
  std::map<GangTicket, Gang> tickets_ ABSL_GUARDED_BY(mutex_);
  // The ticket of each gang the allocator holds, by its allocator id.
  std::map<std::string, GangTicket, std::less<>> by_owner_ ABSL_GUARDED_BY(mutex_);
  int64_t last_ticket_ ABSL_GUARDED_BY(mutex_) = 0;
};

}  // namespace vernier::scheduler

#endif  // VERNIER_SCHEDULER_LOCAL_LOCAL_ADMISSION_H_
