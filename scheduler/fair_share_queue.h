#ifndef VERNIER_SCHEDULER_FAIR_SHARE_QUEUE_H_
#define VERNIER_SCHEDULER_FAIR_SHARE_QUEUE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "scheduler/admission.h"
#include "scheduler/gpu_share_policy.h"

namespace vernier::scheduler {

// The order in which waiting gangs get GPUs when several users share them:
// weighted fair share with quotas. Pure logic: no I/O, no clock, not
// thread-safe (the admission serialises calls).
//
// - Each user's share is weighted (GpuSharePolicy::weights). The next gang
//   to start is the oldest waiting gang of the user who holds the fewest
//   GPUs per unit of weight (ties: the oldest gang first), so that when GPUs
//   free up they go to the users furthest below their share, and one
//   user's gangs start first come, first served.
// - A gang that would take its user, or its job, past a quota waits even
//   when GPUs are free; the gangs behind it do not wait for it.
// - The queue only orders: whether the next gang fits the free GPUs is the
//   caller's question (LocalAdmission waits for it, as backfill on one node
//   would always delay it).
class FairShareQueue {
 public:
  explicit FairShareQueue(GpuSharePolicy policy);

  // OK when a gang of `gpus` GPUs for `owner` fits its quotas when its user
  // and job hold nothing; InvalidArgument naming the quota and its flag
  // otherwise (it could never start).
  absl::Status CheckQuota(int gpus, const GangOwner& owner) const;

  // A waiting gang, behind every gang added before it. Ids are unique.
  void Add(int64_t id, GangOwner owner, int gpus);
  // A gang that holds its GPUs without having waited (restored after a
  // restart); it counts against its user's share and quotas.
  void Hold(int64_t id, GangOwner owner, int gpus);
  // The waiting gang to start next; nullopt when none may (nothing waits,
  // or every waiting gang is held back by a quota).
  std::optional<int64_t> Next() const;
  // A waiting gang starts: it holds its GPUs from now on.
  void Start(int64_t id);
  // Drops a waiting gang, or frees a held one's GPUs. Unknown ids are
  // ignored.
  void Remove(int64_t id);

  // Where `job_id`'s first waiting gang stands in the order the waiting
  // gangs would start in if each started in turn (the ones a quota holds
  // back last), and why it waits; `total_gpus` and `free_gpus` are the
  // admission's. nullopt when none of the job's gangs waits.
  std::optional<GangWait> WaitOf(std::string_view job_id, int total_gpus, int free_gpus) const;
  // The waiting gangs in that order.
  std::vector<int64_t> Order() const;

  int HeldBy(std::string_view user) const;
  int HeldByJob(std::string_view job_id) const;

 private:
  struct Gang {
    GangOwner owner;
    int gpus = 0;
    uint64_t sequence = 0;
    bool waiting = true;
  };
  using Holdings = std::map<std::string, int, std::less<>>;

  // Whether a quota holds `gang` back, given what users and jobs hold.
  bool OverQuota(const Gang& gang, const Holdings& users, const Holdings& jobs) const;
  // The next gang under these holdings, among `waiting` (by sequence),
  // whose users are `waiting_users` (gangs per user): the scan stops once
  // it has seen each of them.
  std::optional<int64_t> NextOf(const std::map<uint64_t, int64_t>& waiting,
                                const Holdings& waiting_users, const Holdings& users,
                                const Holdings& jobs) const;
  // Order, stopping at the first gang of `job_id` (none: the whole order).
  std::vector<int64_t> OrderUntil(std::string_view job_id) const;
  // Why the waiting `gang`, at `position`, waits.
  std::string ReasonOf(const Gang& gang, int position, int total_gpus, int free_gpus) const;

  GpuSharePolicy policy_;
  std::map<int64_t, Gang> gangs_;
  // The waiting gangs by sequence (oldest first): their ids.
  std::map<uint64_t, int64_t> waiting_;
  // How many gangs each user has waiting.
  Holdings waiting_by_user_;
  Holdings held_by_user_;
  Holdings held_by_job_;
  uint64_t next_sequence_ = 0;
};

}  // namespace vernier::scheduler

#endif  // VERNIER_SCHEDULER_FAIR_SHARE_QUEUE_H_
