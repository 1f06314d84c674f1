#include "tuner/rpc_authorizer.h"

#include "absl/strings/str_cat.h"
#include "auth/api_token_codec.h"
#include "auth/resource_field.h"
#include "auth/secret_redaction.h"
#include "tuner/caller_address.h"
#include "tuner/storage/trial_states.h"
#include "common/status_macros.h"
#include "spdlog/spdlog.h"

namespace vernier::tuner {
namespace {

// How often a token's last use is written: at most once a minute.
constexpr absl::Duration kLastUseResolution = absl::Minutes(1);

constexpr char kHowToSendAToken[] =
    "send `authorization: Bearer TOKEN`: vernier --token or VERNIER_TOKEN or VERNIER_TOKEN_FILE, "
    "or the token file `vernier serve` writes for its own user (docs/security.md)";

std::string ResourceKey(absl::string_view kind, absl::string_view name) {
  return absl::StrCat(kind, "\n", name);
}

bool IsStudyRule(auth::Ownership ownership) {
  return ownership == auth::Ownership::kStudyWrite || ownership == auth::Ownership::kStudyOwner;
}

bool IsJobRule(auth::Ownership ownership) {
  return ownership == auth::Ownership::kJobWrite || ownership == auth::Ownership::kJobOwner;
}

}  // namespace

RpcAuthorizer::RpcAuthorizer(storage::Storage& store, Clock clock, absl::Duration cache_time)
    : store_(store), clock_(std::move(clock)), cache_time_(cache_time) {}

absl::StatusOr<v1::ApiToken> RpcAuthorizer::LookUpToken(const std::string& token_hash) {
  const absl::Time now = clock_();
  {
    absl::MutexLock lock(&mutex_);
    auto found = tokens_.find(token_hash);
    // An agent credential is read afresh at every call: it dies with its
    // attempt, on whichever server the attempt ends.
    if (found != tokens_.end() && found->second.token.role() != v1::AGENT &&
        now - found->second.read < cache_time_) {
      return found->second.token;
    }
  }
  absl::StatusOr<v1::ApiToken> token = store_.FindApiToken(token_hash);
  if (!token.ok()) return token.status();
  absl::MutexLock lock(&mutex_);
  tokens_[token_hash] = CachedToken{*token, now};
  return token;
}

void RpcAuthorizer::RecordUse(const v1::ApiToken& token) {
  const absl::Time now = clock_();
  if (token.has_last_use_time() && now - FromTimestamp(token.last_use_time()) < kLastUseResolution) {
    return;
  }
  absl::StatusOr<v1::ApiToken> updated =
      store_.UpdateApiToken(token.id(), [&](v1::ApiToken& stored) {
        *stored.mutable_last_use_time() = ToTimestamp(now);
        return absl::OkStatus();
      });
  if (!updated.ok()) {
    spdlog::warn("cannot record the use of API token {}: {}", token.id(), updated.status().ToString());
    return;
  }
  absl::MutexLock lock(&mutex_);
  for (auto& [hash, cached] : tokens_) {
    if (cached.token.id() == token.id()) cached.token = *updated;
  }
}

absl::StatusOr<auth::Identity> RpcAuthorizer::Authenticate(absl::string_view authorization) {
  VERNIER_ASSIGN_OR_RETURN(const std::string token, auth::TokenFromAuthorization(authorization));
  absl::StatusOr<v1::ApiToken> stored = LookUpToken(auth::HashToken(token));
  if (absl::IsNotFound(stored.status())) {
    return absl::UnauthenticatedError(
        "the bearer token is not one this server issued (mistyped, or from another server)");
  }
  if (!stored.ok()) return stored.status();
  const absl::Time now = clock_();
  if (stored->has_revoke_time()) {
    return absl::UnauthenticatedError(absl::StrCat("API token ", stored->id(), " of ",
                                                   stored->user(), " was revoked"));
  }
  if (stored->has_expire_time() && FromTimestamp(stored->expire_time()) <= now) {
    return absl::UnauthenticatedError(absl::StrCat(
        "API token ", stored->id(), " of ", stored->user(), " expired at ",
        absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", FromTimestamp(stored->expire_time()),
                         absl::UTCTimeZone()),
        "; ask an admin for a new one (vernier tokens create)"));
  }
  if (stored->role() == v1::AGENT) {
    VERNIER_RETURN_IF_ERROR(CheckAttemptRuns(*stored));
  } else {
    RecordUse(*stored);
  }
  return auth::Identity{stored->user(), stored->role(), stored->id(), stored->agent_scope()};
}

absl::Status RpcAuthorizer::CheckAttemptRuns(const v1::ApiToken& token) {
  const v1::AgentScope& scope = token.agent_scope();
  absl::StatusOr<v1::Trial> trial =
      store_.GetTrial(scope.study_name(), scope.trial_id(), /*include_measurements=*/false);
  if (absl::IsNotFound(trial.status())) {
    return absl::UnauthenticatedError(
        absl::StrCat("agent credential ", token.id(), ": its trial no longer exists"));
  }
  if (!trial.ok()) return trial.status();
  // The trial settled: its attempt ended, even before the server deletes
  // the credential (once the replicas are gone).
  if (HasEnded(trial->state())) {
    return absl::UnauthenticatedError(
        absl::StrCat("agent credential ", token.id(), " ended with its attempt: trial ",
                     scope.trial_id(), " is ", v1::Trial::State_Name(trial->state())));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::optional<auth::ResourceAccess>> RpcAuthorizer::LookUpResource(
    const auth::MethodPermission& permission, const std::string& name) {
  const char* kind = IsStudyRule(permission.ownership) ? "study" : "job";
  const std::string key = ResourceKey(kind, name);
  const absl::Time now = clock_();
  {
    absl::MutexLock lock(&mutex_);
    auto found = resources_.find(key);
    if (found != resources_.end() && now - found->second.read < cache_time_) {
      return found->second.access;
    }
  }
  std::optional<auth::ResourceAccess> access;
  if (IsStudyRule(permission.ownership)) {
    absl::StatusOr<v1::Study> study = store_.GetStudy(name);
    if (study.ok()) {
      access = auth::ResourceAccess{kind, name, study->owner(),
                                    {study->grants().begin(), study->grants().end()}};
    } else if (!absl::IsNotFound(study.status())) {
      return study.status();
    }
  } else {
    absl::StatusOr<v1::Job> job = store_.GetJob(name);
    if (job.ok()) {
      access = auth::ResourceAccess{kind, name, job->owner(),
                                    {job->grants().begin(), job->grants().end()}};
    } else if (!absl::IsNotFound(job.status())) {
      return job.status();
    }
  }
  absl::MutexLock lock(&mutex_);
  // A missing one is not cached: it may be created next.
  if (access.has_value()) resources_[key] = CachedResource{access, now};
  return access;
}

RpcAuthorizer::Verdict RpcAuthorizer::Decide(const grpc::ServerContextBase& context,
                                              absl::string_view method,
                                              const google::protobuf::Message& request) {
  Verdict verdict;
  verdict.permission = auth::FindPermission(method);
  const auto& metadata = context.client_metadata();
  const auto header = metadata.find("authorization");
  if (header == metadata.end()) {
    verdict.status =
        absl::UnauthenticatedError(absl::StrCat(method, ": no token: ", kHowToSendAToken));
    return verdict;
  }
  absl::StatusOr<auth::Identity> who =
      Authenticate(absl::string_view(header->second.data(), header->second.size()));
  if (!who.ok()) {
    verdict.status = absl::IsUnauthenticated(who.status())
                         ? absl::UnauthenticatedError(absl::StrCat(method, ": ", who.status().message()))
                         : who.status();
    return verdict;
  }
  verdict.who = *std::move(who);
  verdict.status = Check(*verdict.who, verdict.permission, method, request);
  return verdict;
}

absl::Status RpcAuthorizer::Check(const auth::Identity& who,
                                  const auth::MethodPermission* permission,
                                  absl::string_view method,
                                  const google::protobuf::Message& request) {
  if (permission == nullptr) {
    return absl::PermissionDeniedError(
        absl::StrCat(method, " has no entry in the permission table; refused"));
  }
  std::optional<auth::ResourceAccess> resource;
  std::optional<v1::AgentScope> replica;
  if (permission->ownership == auth::Ownership::kAgentAttempt) {
    VERNIER_ASSIGN_OR_RETURN(replica, auth::ReplicaOf(request, permission->resource_field));
  } else if (IsStudyRule(permission->ownership) || IsJobRule(permission->ownership)) {
    VERNIER_ASSIGN_OR_RETURN(const std::string name,
                             auth::StringField(request, permission->resource_field));
    if (!name.empty()) {
      VERNIER_ASSIGN_OR_RETURN(resource, LookUpResource(*permission, name));
    }
  }
  return auth::DecideAccess(who, *permission, resource.has_value() ? &*resource : nullptr,
                            replica.has_value() ? &*replica : nullptr);
}

absl::StatusOr<auth::Identity> RpcAuthorizer::Authorize(const grpc::ServerContextBase& context,
                                                        absl::string_view method,
                                                        const google::protobuf::Message& request) {
  Verdict verdict = Decide(context, method, request);
  if (!verdict.status.ok()) return verdict.status;
  return *std::move(verdict.who);
}

bool RpcAuthorizer::Audits(const Verdict& verdict) const {
  if (audit_log_ == nullptr) return false;
  // Refusals and admin activity always; data access when asked.
  if (!verdict.status.ok() || audit_log_->records_data_access()) return true;
  return verdict.permission != nullptr && auth::IsAdminActivity(*verdict.permission);
}

void RpcAuthorizer::Audit(const grpc::ServerContextBase& context, absl::string_view method,
                          const google::protobuf::Message& request, const Verdict& verdict,
                          const grpc::Status& outcome) {
  if (!Audits(verdict)) return;
  v1::AuditEntry entry;
  *entry.mutable_time() = ToTimestamp(clock_());
  if (verdict.who.has_value()) {
    entry.set_user(verdict.who->user);
    entry.set_role(verdict.who->role);
  }
  entry.set_method(std::string(method));
  if (verdict.permission != nullptr) {
    entry.set_resource(auth::ResourceNamed(request, *verdict.permission));
    entry.set_data_access(!auth::IsAdminActivity(*verdict.permission));
  }
  entry.set_code(static_cast<int32_t>(outcome.error_code()));
  entry.set_peer(CallerAddress(context));
  entry.set_summary(auth::RequestSummary(request));
  audit_log_->Record(std::move(entry));
}

void RpcAuthorizer::ForgetToken(absl::string_view token_id) {
  absl::MutexLock lock(&mutex_);
  for (auto it = tokens_.begin(); it != tokens_.end();) {
    it = it->second.token.id() == token_id ? tokens_.erase(it) : std::next(it);
  }
}

void RpcAuthorizer::ForgetResource(absl::string_view kind, absl::string_view name) {
  absl::MutexLock lock(&mutex_);
  resources_.erase(ResourceKey(kind, name));
}

}  // namespace vernier::tuner
