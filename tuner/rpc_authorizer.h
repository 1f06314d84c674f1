#ifndef VERNIER_TUNER_RPC_AUTHORIZER_H_
#define VERNIER_TUNER_RPC_AUTHORIZER_H_

#include <grpcpp/server_context.h>

#include <map>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "auth/access_decision.h"
#include "auth/identity.h"
#include "auth/permission_table.h"
#include "google/protobuf/message.h"
#include "tuner/audit_log.h"
#include "tuner/clock.h"
#include "tuner/storage/storage.h"
#include "vernier/grpc_status.h"

namespace vernier::tuner {

// The one gate every RPC passes (AuthorizedServices call it first):
// authenticates the call's `authorization: Bearer TOKEN` against the
// store's token hashes, finds the method's row in auth::PermissionTable,
// reads the study or job it names, and decides with auth::DecideAccess.
// Token lookups and resources are cached for `cache_time` (a revocation or
// a share made through this server applies at once; one made through
// another server sharing the store within `cache_time`). Agent credentials
// are not cached: each call checks that the credential still exists and
// that its trial has not settled, so one stops working the moment its
// attempt ends.
//
// It also keeps the audit log (docs/security.md): Guard records each call
// with its outcome, the admin activity and refusals always, reads and
// measurement writes when the AuditLog records data access.
class RpcAuthorizer {
 public:
  RpcAuthorizer(storage::Storage& store, Clock clock, absl::Duration cache_time = absl::Seconds(5));

  // The audit log Guard records to (nullptr: none). Set before serving.
  void set_audit_log(AuditLog* audit_log) { audit_log_ = audit_log; }

  // The gate's answer on one call.
  struct Verdict {
    // OK, or why the call is refused (as Authorize).
    absl::Status status;
    // The caller, when its token is good (also when refused for its role).
    std::optional<auth::Identity> who;
    // The method's row (nullptr: none).
    const auth::MethodPermission* permission = nullptr;
  };
  Verdict Decide(const grpc::ServerContextBase& context, absl::string_view method,
                 const google::protobuf::Message& request);

  // The one way a handler is reached: decides, runs `handler(identity)`
  // (returning grpc::Status) when the call may go on, and records the call
  // and its outcome in the audit log.
  template <typename Handler>
  grpc::Status Guard(const grpc::ServerContextBase& context, absl::string_view method,
                     const google::protobuf::Message& request, Handler&& handler) {
    const Verdict verdict = Decide(context, method, request);
    const grpc::Status outcome =
        verdict.status.ok() ? handler(*verdict.who) : ToGrpcStatus(verdict.status);
    Audit(context, method, request, verdict, outcome);
    return outcome;
  }
  // Whether a call with this verdict goes in the audit log.
  bool Audits(const Verdict& verdict) const;
  // Records the call (when Audits) with its outcome.
  void Audit(const grpc::ServerContextBase& context, absl::string_view method,
             const google::protobuf::Message& request, const Verdict& verdict,
             const grpc::Status& outcome);

  // The caller, when it may make `method` (gRPC's path) with `request`;
  // UNAUTHENTICATED for a missing, malformed, unknown, expired or revoked
  // token; PERMISSION_DENIED (auth::DecideAccess) for a role or ownership
  // refusal, or a method with no row in the table.
  absl::StatusOr<auth::Identity> Authorize(const grpc::ServerContextBase& context,
                                           absl::string_view method,
                                           const google::protobuf::Message& request);
  // Who the bearer token in `authorization` (a metadata value) stands for.
  absl::StatusOr<auth::Identity> Authenticate(absl::string_view authorization);

  // Forget what is cached about a token (revoked) or a resource (shared).
  void ForgetToken(absl::string_view token_id);
  void ForgetResource(absl::string_view kind, absl::string_view name);

 private:
  struct CachedToken {
    v1::ApiToken token;
    absl::Time read;
  };
  struct CachedResource {
    std::optional<auth::ResourceAccess> access;
    absl::Time read;
  };
  // Whether `who` may make the call (permission nullptr: no row).
  absl::Status Check(const auth::Identity& who, const auth::MethodPermission* permission,
                     absl::string_view method, const google::protobuf::Message& request);
  absl::StatusOr<v1::ApiToken> LookUpToken(const std::string& token_hash);
  // UNAUTHENTICATED when the agent credential's attempt ended: its trial
  // settled (or is gone).
  absl::Status CheckAttemptRuns(const v1::ApiToken& token);
  absl::StatusOr<std::optional<auth::ResourceAccess>> LookUpResource(
      const auth::MethodPermission& permission, const std::string& name);
  void RecordUse(const v1::ApiToken& token);

  storage::Storage& store_;
  Clock clock_;
  AuditLog* audit_log_ = nullptr;
  absl::Duration cache_time_;
  absl::Mutex mutex_;
  std::map<std::string, CachedToken> tokens_ ABSL_GUARDED_BY(mutex_);
  std::map<std::string, CachedResource> resources_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace vernier::tuner

#endif  // VERNIER_TUNER_RPC_AUTHORIZER_H_
