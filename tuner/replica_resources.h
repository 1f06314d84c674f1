#ifndef VERNIER_TUNER_REPLICA_RESOURCES_H_
#define VERNIER_TUNER_REPLICA_RESOURCES_H_

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "scheduler/gang_allocator.h"
#include "scheduler/port_allocator.h"
#include "vernier/v1/job.pb.h"

namespace vernier::tuner {

// The GPUs and ports the job controller grants to trials' replicas, by key
// (JOB_ID/TRIAL_ID for a trial, JOB_ID/pending-N for a gang that waits for
// GPUs before its trial is suggested). GPUs come from a GangAllocator over
// this machine's devices (one node); ports from a PortAllocator. Safe to
// call from several threads.
class ReplicaResources {
 public:
  // `gpus`: device indexes (as CUDA_VISIBLE_DEVICES names them); `usable`:
  // whether another program leaves a port free (PortProbe::IsFree).
  // `port_offset`: where in the range the port search starts (see
  // PortAllocator).
  ReplicaResources(std::vector<int> gpus, scheduler::PortRange ports,
                   std::function<bool(int)> usable, int port_offset = 0);

  bool has_gpus() const { return !gpus_.empty(); }

  // Queues a gang; it waits until Schedule grants it.
  absl::Status Enqueue(const std::string& key, const std::vector<int>& gpus_per_replica);
  // Grants what fits now; the keys granted by this or an earlier call and
  // not yet taken are then returned by TakeGranted.
  void Schedule();
  // The granted keys starting with `prefix`, each returned once.
  std::vector<std::string> TakeGranted(std::string_view prefix);
  // Gives a granted gang a new key (a pending gang becomes its trial's).
  absl::Status Rename(const std::string& from, const std::string& to);
  // How many keys starting with `prefix` are queued or granted.
  int CountGangs(std::string_view prefix);

  // The device indexes granted to each replica of `key`; empty lists when
  // it holds no GPUs.
  std::vector<std::vector<int>> GpusOf(const std::string& key, size_t replicas);
  // `count` ports for `key`: those it holds, or newly reserved ones.
  absl::StatusOr<std::vector<int>> Ports(const std::string& key, int count);

  // Marks what a run started before a restart holds as held again (from
  // ReplicaStatus.gpus and .port).
  absl::Status Restore(const std::string& key, const v1::TrialRun& run);
  // Frees everything `key` holds or waits for; unknown keys are ignored.
  void Release(const std::string& key);
  // Release for every key starting with `prefix`.
  void ReleasePrefix(std::string_view prefix);
  // Whether `key` holds GPUs or ports.
  bool Holds(const std::string& key);

  int free_gpus();

 private:
  std::vector<int> gpus_;
  std::function<bool(int)> usable_;
  mutable absl::Mutex mutex_;
  scheduler::GangAllocator gangs_ ABSL_GUARDED_BY(mutex_);
  scheduler::PortAllocator ports_ ABSL_GUARDED_BY(mutex_);
  // Queued or placed gangs' keys.
  std::set<std::string, std::less<>> gang_keys_ ABSL_GUARDED_BY(mutex_);
  std::map<std::string, scheduler::GangPlacement, std::less<>> placed_ ABSL_GUARDED_BY(mutex_);
  std::set<std::string, std::less<>> granted_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace vernier::tuner

#endif  // VERNIER_TUNER_REPLICA_RESOURCES_H_
