#ifndef VERNIER_SCHEDULER_ADMISSION_H_
#define VERNIER_SCHEDULER_ADMISSION_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "vernier/v1/job.pb.h"

namespace vernier::scheduler {

// One gang (the replicas of one trial, which start together or not at all)
// in an Admission, from its request until its release. An admission never
// hands out the same id twice.
struct GangTicket {
  int64_t id = 0;

  auto operator<=>(const GangTicket&) const = default;
};

// Whom a gang is for: the fair share and the quotas of the local admission
// count GPUs per user and per job (GpuSharePolicy).
struct GangOwner {
  // The job's owner (Job.owner); empty for jobs stored before owners.
  std::string user;
  std::string job_id;
};

// Where a job's first waiting gang stands in an admission's queue.
struct GangWait {
  // 1 for the gang that starts next.
  int position = 0;
  // Its position and why it waits, e.g. "2nd in the queue; alice holds 4
  // of a quota of 4 GPUs (--gpu-quota-per-user 4); the trial needs 1".
  std::string reason;

  bool operator==(const GangWait&) const = default;
};

// What a granted gang holds, in the request's replica order.
struct GangGrant {
  // The GPU device indexes (as CUDA_VISIBLE_DEVICES names them) granted to
  // each replica; empty lists when the admission grants none (a backend
  // that grants GPUs itself, or a replica that asked for none).
  std::vector<std::vector<int>> gpus;
  // One TCP port per replica (TF_CONFIG, MASTER_PORT); no two gangs hold
  // the same port.
  std::vector<int> ports;
};

// Decides when a trial's replicas may start and what they get: the
// scheduler's side of running a trial, so that the tuner never knows which
// backend it has. A gang is requested with the shape of its replicas, gets
// a ticket, waits until Schedule grants it (or is granted at once when
// nothing needs to wait), and is released when its replicas have ended.
// Implementations are safe to call from several threads.
class Admission {
 public:
  virtual ~Admission() = default;

  // OK when a trial of `replicas` for `owner` can ever be granted (it fits
  // the GPUs, and the owner's quotas); otherwise InvalidArgument saying why
  // not (the caller names the field), so that a job that could never start
  // is refused at submit rather than left waiting.
  virtual absl::Status CheckCapacity(const std::vector<v1::ReplicaSpec>& replicas,
                                     const GangOwner& owner) = 0;
  // Whether this admission grants the GPUs replicas see: a replica granted
  // none must then see none (CUDA_VISIBLE_DEVICES=""), not every GPU of the
  // machine.
  virtual bool GrantsGpus() const = 0;

  // Queues a gang of `owner` whose replica i needs gpus_per_replica[i] GPUs.
  // InvalidArgument when it can never be granted.
  virtual absl::StatusOr<GangTicket> Request(const std::vector<int>& gpus_per_replica,
                                             const GangOwner& owner) = 0;
  // Grants the waiting gangs that may start now.
  virtual void Schedule() = 0;
  // Whether `ticket` is granted (false for a waiting or unknown one).
  virtual bool IsGranted(GangTicket ticket) = 0;
  // What a granted ticket holds; its ports are reserved at the first call
  // and kept until Release. FailedPrecondition when it is not granted;
  // ResourceExhausted when too few ports are free.
  virtual absl::StatusOr<GangGrant> Grant(GangTicket ticket) = 0;
  // After a restart: what a run started by an earlier server holds
  // (ReplicaStatus.gpus and .port) is held again, under a new granted
  // ticket. FailedPrecondition when it conflicts with what is held already
  // or names a GPU the admission does not have.
  virtual absl::StatusOr<GangTicket> Restore(const v1::TrialRun& run, const GangOwner& owner) = 0;
  // Frees what `ticket` holds, or drops it from the queue. Unknown tickets
  // are ignored, so that every exit path may call it.
  virtual void Release(GangTicket ticket) = 0;
  // Where the first of `job_id`'s waiting gangs stands and why it waits;
  // nullopt when none waits, or when the admission keeps no queue of its
  // own (Slurm's queue is Slurm's).
  virtual std::optional<GangWait> Waiting(std::string_view job_id) = 0;
};

}  // namespace vernier::scheduler

#endif  // VERNIER_SCHEDULER_ADMISSION_H_
