#include "scheduler/fair_share_queue.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace vernier::scheduler {
namespace {

int HeldIn(const std::map<std::string, int, std::less<>>& holdings, std::string_view key) {
  auto held = holdings.find(key);
  return held == holdings.end() ? 0 : held->second;
}

void AddTo(std::map<std::string, int, std::less<>>& holdings, const std::string& key, int gpus) {
  auto [held, inserted] = holdings.try_emplace(key, 0);
  held->second += gpus;
  if (held->second <= 0) holdings.erase(held);
}

std::string Gpus(int count) { return absl::StrCat(count, count == 1 ? " GPU" : " GPUs"); }

std::string UserName(std::string_view user) {
  return user.empty() ? std::string("(no owner)") : std::string(user);
}

// 1st, 2nd, 3rd, 4th, ..., 11th, 12th, 13th, 21st.
std::string Ordinal(int n) {
  const int tens = n % 100;
  const int ones = n % 10;
  const char* suffix = "th";
  if (tens < 11 || tens > 13) {
    if (ones == 1) suffix = "st";
    if (ones == 2) suffix = "nd";
    if (ones == 3) suffix = "rd";
  }
  return absl::StrCat(n, suffix);
}

// A share of GPUs: whole when it is whole, else to one decimal.
std::string ShareText(double share) {
  if (std::abs(share - std::round(share)) < 0.05) {
    return absl::StrCat(static_cast<int64_t>(std::round(share)));
  }
  return absl::StrFormat("%.1f", share);
}

}  // namespace

FairShareQueue::FairShareQueue(GpuSharePolicy policy) : policy_(std::move(policy)) {}

absl::Status FairShareQueue::CheckQuota(int gpus, const GangOwner& owner) const {
  const std::optional<int> user_quota = policy_.QuotaOf(owner.user);
  if (user_quota.has_value() && gpus > *user_quota) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a trial needs ", Gpus(gpus), " but ", UserName(owner.user), " may hold at most ",
        Gpus(*user_quota), " (`vernier serve ", policy_.QuotaFlagOf(owner.user), "`)"));
  }
  if (policy_.quota_per_job.has_value() && gpus > *policy_.quota_per_job) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a trial needs ", Gpus(gpus), " but a job may hold at most ", Gpus(*policy_.quota_per_job),
        " (`vernier serve --gpu-quota-per-job ", *policy_.quota_per_job, "`)"));
  }
  return absl::OkStatus();
}

void FairShareQueue::Add(int64_t id, GangOwner owner, int gpus) {
  const uint64_t sequence = next_sequence_++;
  AddTo(waiting_by_user_, owner.user, 1);
  gangs_[id] = Gang{std::move(owner), gpus, sequence, true};
  waiting_[sequence] = id;
}

void FairShareQueue::Hold(int64_t id, GangOwner owner, int gpus) {
  AddTo(held_by_user_, owner.user, gpus);
  AddTo(held_by_job_, owner.job_id, gpus);
  gangs_[id] = Gang{std::move(owner), gpus, next_sequence_++, false};
}

bool FairShareQueue::OverQuota(const Gang& gang, const Holdings& users,
                               const Holdings& jobs) const {
  const std::optional<int> user_quota = policy_.QuotaOf(gang.owner.user);
  if (user_quota.has_value() && HeldIn(users, gang.owner.user) + gang.gpus > *user_quota) {
    return true;
  }
  return policy_.quota_per_job.has_value() &&
         HeldIn(jobs, gang.owner.job_id) + gang.gpus > *policy_.quota_per_job;
}

std::optional<int64_t> FairShareQueue::NextOf(const std::map<uint64_t, int64_t>& waiting,
                                              const Holdings& waiting_users, const Holdings& users,
                                              const Holdings& jobs) const {
  std::optional<int64_t> best;
  double best_key = 0;
  // Users whose first gang that may start has been seen: their later gangs
  // wait behind it.
  std::set<std::string_view> seen;
  for (const auto& [sequence, id] : waiting) {
    // Every user's first gang that may start is seen: none behind can win.
    if (seen.size() == waiting_users.size()) break;
    const Gang& gang = gangs_.at(id);
    if (seen.contains(gang.owner.user) || OverQuota(gang, users, jobs)) continue;
    seen.insert(gang.owner.user);
    const double key = HeldIn(users, gang.owner.user) / policy_.WeightOf(gang.owner.user);
    // Oldest first among equals: `waiting` is in sequence order.
    if (!best.has_value() || key < best_key) {
      best = id;
      best_key = key;
    }
  }
  return best;
}

std::optional<int64_t> FairShareQueue::Next() const {
  return NextOf(waiting_, waiting_by_user_, held_by_user_, held_by_job_);
}

void FairShareQueue::Start(int64_t id) {
  auto gang = gangs_.find(id);
  if (gang == gangs_.end() || !gang->second.waiting) return;
  waiting_.erase(gang->second.sequence);
  AddTo(waiting_by_user_, gang->second.owner.user, -1);
  gang->second.waiting = false;
  AddTo(held_by_user_, gang->second.owner.user, gang->second.gpus);
  AddTo(held_by_job_, gang->second.owner.job_id, gang->second.gpus);
}

void FairShareQueue::Remove(int64_t id) {
  auto gang = gangs_.find(id);
  if (gang == gangs_.end()) return;
  if (gang->second.waiting) {
    waiting_.erase(gang->second.sequence);
    AddTo(waiting_by_user_, gang->second.owner.user, -1);
  } else {
    AddTo(held_by_user_, gang->second.owner.user, -gang->second.gpus);
    AddTo(held_by_job_, gang->second.owner.job_id, -gang->second.gpus);
  }
  gangs_.erase(gang);
}

std::vector<int64_t> FairShareQueue::Order() const { return OrderUntil(""); }

std::vector<int64_t> FairShareQueue::OrderUntil(std::string_view job_id) const {
  std::map<uint64_t, int64_t> waiting = waiting_;
  Holdings waiting_users = waiting_by_user_;
  Holdings users = held_by_user_;
  Holdings jobs = held_by_job_;
  std::vector<int64_t> order;
  order.reserve(waiting.size());
  while (std::optional<int64_t> next = NextOf(waiting, waiting_users, users, jobs)) {
    const Gang& gang = gangs_.at(*next);
    order.push_back(*next);
    if (!job_id.empty() && gang.owner.job_id == job_id) return order;
    waiting.erase(gang.sequence);
    AddTo(waiting_users, gang.owner.user, -1);
    AddTo(users, gang.owner.user, gang.gpus);
    AddTo(jobs, gang.owner.job_id, gang.gpus);
  }
  // Held back by a quota, oldest first.
  for (const auto& [sequence, id] : waiting) order.push_back(id);
  return order;
}

std::optional<GangWait> FairShareQueue::WaitOf(std::string_view job_id, int total_gpus,
                                               int free_gpus) const {
  // Only jobs with a waiting gang have a place.
  const bool waits = std::any_of(waiting_.begin(), waiting_.end(), [&](const auto& entry) {
    return gangs_.at(entry.second).owner.job_id == job_id;
  });
  if (!waits) return std::nullopt;
  const std::vector<int64_t> order = OrderUntil(job_id);
  for (size_t i = 0; i < order.size(); ++i) {
    const Gang& gang = gangs_.at(order[i]);
    if (gang.owner.job_id != job_id) continue;
    const int position = static_cast<int>(i) + 1;
    return GangWait{position, ReasonOf(gang, position, total_gpus, free_gpus)};
  }
  return std::nullopt;
}

std::string FairShareQueue::ReasonOf(const Gang& gang, int position, int total_gpus,
                                     int free_gpus) const {
  const std::string where = absl::StrCat(Ordinal(position), " in the queue; ");
  const std::string& user = gang.owner.user;
  const int user_holds = HeldIn(held_by_user_, user);
  const std::optional<int> user_quota = policy_.QuotaOf(user);
  if (user_quota.has_value() && user_holds + gang.gpus > *user_quota) {
    return absl::StrCat(where, UserName(user), " holds ", user_holds, " of a quota of ",
                        Gpus(*user_quota), " (", policy_.QuotaFlagOf(user), "); the trial needs ",
                        gang.gpus);
  }
  const int job_holds = HeldIn(held_by_job_, gang.owner.job_id);
  if (policy_.quota_per_job.has_value() && job_holds + gang.gpus > *policy_.quota_per_job) {
    return absl::StrCat(where, "job ", gang.owner.job_id, " holds ", job_holds, " of a quota of ",
                        Gpus(*policy_.quota_per_job), " (--gpu-quota-per-job ",
                        *policy_.quota_per_job, "); the trial needs ", gang.gpus);
  }
  if (position == 1) {
    return absl::StrCat(where, "the trial needs ", Gpus(gang.gpus), ", ", free_gpus,
                        free_gpus == 1 ? " is" : " are", " free");
  }
  // The users that want GPUs now: holding some, or waiting for some.
  std::set<std::string_view> active;
  for (const auto& [name, held] : held_by_user_) active.insert(name);
  for (const auto& [sequence, id] : waiting_) active.insert(gangs_.at(id).owner.user);
  double weights = 0;
  for (std::string_view name : active) weights += policy_.WeightOf(name);
  const double share = weights > 0 ? total_gpus * policy_.WeightOf(user) / weights : 0;
  return absl::StrCat(where, UserName(user), "'s share is ", ShareText(share), " of ",
                      Gpus(total_gpus), ", holds ", user_holds);
}

int FairShareQueue::HeldBy(std::string_view user) const { return HeldIn(held_by_user_, user); }

int FairShareQueue::HeldByJob(std::string_view job_id) const {
  return HeldIn(held_by_job_, job_id);
}

}  // namespace vernier::scheduler
