#include "tuner/agent_liveness.h"

#include <algorithm>
#include <limits>

namespace vernier::tuner {

void AgentLiveness::Heard(const Replica& replica, absl::Time now) {
  absl::MutexLock lock(&mutex_);
  absl::Time& last = last_heard_[replica];
  last = std::max(last, now);
}

absl::Duration AgentLiveness::SilentFor(const Replica& replica, absl::Time now) {
  absl::MutexLock lock(&mutex_);
  const auto [it, inserted] = last_heard_.emplace(replica, now);
  return std::max(absl::ZeroDuration(), now - it->second);
}

std::optional<absl::Time> AgentLiveness::LastHeard(const Replica& replica) {
  absl::MutexLock lock(&mutex_);
  auto heard = last_heard_.find(replica);
  if (heard == last_heard_.end()) return std::nullopt;
  return heard->second;
}

void AgentLiveness::Forget(const Replica& replica) {
  absl::MutexLock lock(&mutex_);
  last_heard_.erase(replica);
}

void AgentLiveness::RetainTrials(const std::string& study, const std::set<int64_t>& running) {
  absl::MutexLock lock(&mutex_);
  for (auto it =
           last_heard_.lower_bound(Replica{study, std::numeric_limits<int64_t>::min(), "", 0});
       it != last_heard_.end();) {
    if (it->first.study != study) break;
    it = running.contains(it->first.trial) ? std::next(it) : last_heard_.erase(it);
  }
}

}  // namespace vernier::tuner
