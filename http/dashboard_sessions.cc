#include "http/dashboard_sessions.h"

#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/string_view.h"
#include "auth/api_token_codec.h"
#include "common/status_macros.h"

namespace vernier::http {

DashboardSessions::DashboardSessions(absl::Duration lifetime, size_t max_sessions,
                                     std::function<absl::Time()> clock)
    : lifetime_(lifetime), max_sessions_(max_sessions), clock_(std::move(clock)) {}

absl::StatusOr<std::string> DashboardSessions::Open(std::string authorization) {
  VERNIER_ASSIGN_OR_RETURN(const auth::TokenSecret secret, auth::RandomTokenSecret());
  std::string id = absl::BytesToHexString(
      absl::string_view(reinterpret_cast<const char*>(secret.data()), secret.size()));
  const absl::Time now = clock_();
  absl::MutexLock lock(&mutex_);
  DropExpiredLocked(now);
  while (!sessions_.empty() && sessions_.size() >= max_sessions_) {
    auto first = sessions_.begin();
    for (auto it = sessions_.begin(); it != sessions_.end(); ++it) {
      if (it->second.expires < first->second.expires) first = it;
    }
    sessions_.erase(first);
  }
  sessions_[id] = Session{std::move(authorization), now + lifetime_};
  return id;
}

std::string DashboardSessions::Find(absl::string_view id) {
  if (id.empty()) return "";
  const absl::Time now = clock_();
  absl::MutexLock lock(&mutex_);
  const auto session = sessions_.find(id);
  if (session == sessions_.end()) return "";
  if (session->second.expires <= now) {
    sessions_.erase(session);
    return "";
  }
  return session->second.authorization;
}

void DashboardSessions::Close(absl::string_view id) {
  absl::MutexLock lock(&mutex_);
  sessions_.erase(id);
}

size_t DashboardSessions::Size() const {
  absl::MutexLock lock(&mutex_);
  return sessions_.size();
}

void DashboardSessions::DropExpiredLocked(absl::Time now) {
  for (auto it = sessions_.begin(); it != sessions_.end();) {
    if (it->second.expires <= now) {
      sessions_.erase(it++);
    } else {
      ++it;
    }
  }
}

}  // namespace vernier::http
