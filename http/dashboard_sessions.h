#ifndef VERNIER_HTTP_DASHBOARD_SESSIONS_H_
#define VERNIER_HTTP_DASHBOARD_SESSIONS_H_

#include <cstddef>
#include <functional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace vernier::http {

// The dashboard's sessions, in this server's memory only: an opaque random
// id (what the browser's cookie holds) mapped to the credentials that
// opened it (the caller's "Bearer TOKEN", checked before), until it expires.
// The id tells nothing about the token and is worth nothing to any other
// server or port; the token stays here. Every request of a session still
// sends the token to the gRPC service, so a revoked or expired token ends
// its sessions at once.
class DashboardSessions {
 public:
  DashboardSessions(absl::Duration lifetime, size_t max_sessions,
                    std::function<absl::Time()> clock = absl::Now);

  // A new session for `authorization`: 64 hex digits of 256 bits from the
  // system's cryptographic random source (INTERNAL if it fails). With
  // `max_sessions` open, the one that expires first is dropped.
  absl::StatusOr<std::string> Open(std::string authorization);
  // The credentials of the live session `id`; empty for an unknown or
  // expired one (dropped then).
  std::string Find(absl::string_view id);
  // Ends the session `id` (nothing when there is none).
  void Close(absl::string_view id);
  // How many sessions are held (expired ones not yet dropped included).
  size_t Size() const;

  absl::Duration lifetime() const { return lifetime_; }

 private:
  struct Session {
    std::string authorization;
    absl::Time expires;
  };
  void DropExpiredLocked(absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  const absl::Duration lifetime_;
  const size_t max_sessions_;
  const std::function<absl::Time()> clock_;
  mutable absl::Mutex mutex_;
  absl::flat_hash_map<std::string, Session> sessions_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace vernier::http

#endif  // VERNIER_HTTP_DASHBOARD_SESSIONS_H_
