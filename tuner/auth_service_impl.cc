#include "tuner/auth_service_impl.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "auth/api_token_codec.h"
#include "auth/roles.h"
#include "common/status_macros.h"
#include "spdlog/spdlog.h"
#include "vernier/grpc_status.h"

namespace vernier::tuner {
namespace {

constexpr char kAuthService[] = "/vernier.v1.AuthService/";

absl::Status CheckUserName(const std::string& user, absl::string_view what) {
  if (user.empty()) return absl::InvalidArgumentError(absl::StrCat(what, " is required"));
  if (user.size() > 128) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": longer than 128 characters"));
  }
  for (char c : user) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-' &&
        c != '@') {
      return absl::InvalidArgumentError(absl::StrCat(
          what, " \"", user, "\": only letters, digits and . _ - @ may appear in a user name"));
    }
  }
  return absl::OkStatus();
}

// Sets, changes or (ROLE_UNSPECIFIED) removes `user`'s grant.
void SetGrant(google::protobuf::RepeatedPtrField<v1::AccessGrant>& grants, const std::string& user,
              v1::Role role) {
  for (int i = 0; i < grants.size(); ++i) {
    if (grants[i].user() != user) continue;
    if (role == v1::ROLE_UNSPECIFIED) {
      grants.DeleteSubrange(i, 1);
    } else {
      grants[i].set_role(role);
    }
    return;
  }
  if (role == v1::ROLE_UNSPECIFIED) return;
  v1::AccessGrant* grant = grants.Add();
  grant->set_user(user);
  grant->set_role(role);
}

absl::Status CheckShare(const v1::ShareRequest& request, absl::string_view name_what) {
  if (request.name().empty()) return absl::InvalidArgumentError(absl::StrCat(name_what, " is required"));
  VERNIER_RETURN_IF_ERROR(CheckUserName(request.user(), "user"));
  if (request.role() != v1::VIEWER && request.role() != v1::DEVELOPER &&
      request.role() != v1::ROLE_UNSPECIFIED) {
    return absl::InvalidArgumentError(absl::StrCat(
        "role: a study or job is shared as viewer or developer, not ", auth::RoleName(request.role())));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<v1::CreateTokenResponse> IssueApiToken(storage::Storage& store,
                                                      const std::string& user, v1::Role role,
                                                      absl::Duration expires_in,
                                                      const std::string& created_by,
                                                      absl::Time now) {
  VERNIER_RETURN_IF_ERROR(CheckUserName(user, "user"));
  if (role != v1::VIEWER && role != v1::DEVELOPER && role != v1::ADMIN) {
    return absl::InvalidArgumentError(
        absl::StrCat("role: a token's role is viewer, developer or admin, not ", auth::RoleName(role)));
  }
  if (expires_in < absl::ZeroDuration()) {
    return absl::InvalidArgumentError("expires_in_seconds: must not be negative");
  }
  VERNIER_ASSIGN_OR_RETURN(const auth::TokenSecret secret, auth::RandomTokenSecret());
  v1::CreateTokenResponse response;
  response.set_token(auth::FormatToken(secret));
  const std::string hash = auth::HashToken(response.token());
  v1::ApiToken& info = *response.mutable_info();
  info.set_id(auth::TokenIdOfHash(hash));
  info.set_user(user);
  info.set_role(role);
  info.set_created_by(created_by);
  *info.mutable_create_time() = ToTimestamp(now);
  if (expires_in > absl::ZeroDuration()) *info.mutable_expire_time() = ToTimestamp(now + expires_in);
  VERNIER_RETURN_IF_ERROR(store.CreateApiToken(hash, info));
  spdlog::info("API token {} created for {} ({}) by {}", info.id(), user, auth::RoleName(role),
               created_by);
  return response;
}

grpc::Status AuthServiceImpl::CreateToken(grpc::ServerContext* context,
                                          const v1::CreateTokenRequest* request,
                                          v1::CreateTokenResponse* response) {
  return gate_.Guard(
      *context, absl::StrCat(kAuthService, "CreateToken"), *request,
      [&](const auth::Identity& who) -> grpc::Status {
    absl::StatusOr<v1::CreateTokenResponse> created =
        IssueApiToken(store_, request->user(), request->role(),
                      absl::Seconds(request->expires_in_seconds()), who.user, clock_());
    if (!created.ok()) return ToGrpcStatus(created.status());
    *response = *std::move(created);
    return grpc::Status::OK;
      });
}

grpc::Status AuthServiceImpl::ListTokens(grpc::ServerContext* context,
                                         const v1::ListTokensRequest* request,
                                         v1::ListTokensResponse* response) {
  return gate_.Guard(
      *context, absl::StrCat(kAuthService, "ListTokens"), *request,
      [&](const auth::Identity& who) -> grpc::Status {
    absl::StatusOr<std::vector<v1::ApiToken>> tokens = store_.ListApiTokens();
    if (!tokens.ok()) return ToGrpcStatus(tokens.status());
    const absl::Time now = clock_();
    for (v1::ApiToken& token : *tokens) {
      // Agents' credentials live as long as their trial attempt.
      if (token.role() == v1::AGENT) continue;
      const bool inactive = token.has_revoke_time() ||
                            (token.has_expire_time() && FromTimestamp(token.expire_time()) <= now);
      if (inactive && !request->include_inactive()) continue;
      *response->add_tokens() = std::move(token);
    }
    return grpc::Status::OK;
      });
}

grpc::Status AuthServiceImpl::RevokeToken(grpc::ServerContext* context,
                                          const v1::RevokeTokenRequest* request,
                                          v1::ApiToken* response) {
  return gate_.Guard(
      *context, absl::StrCat(kAuthService, "RevokeToken"), *request,
      [&](const auth::Identity& who) -> grpc::Status {
    if (request->token_id().empty()) {
      return ToGrpcStatus(absl::InvalidArgumentError("token_id is required (vernier tokens list)"));
    }
    const absl::Time now = clock_();
    absl::StatusOr<v1::ApiToken> revoked =
        store_.UpdateApiToken(request->token_id(), [&](v1::ApiToken& token) {
          if (!token.has_revoke_time()) *token.mutable_revoke_time() = ToTimestamp(now);
          return absl::OkStatus();
        });
    if (!revoked.ok()) return ToGrpcStatus(revoked.status());
    gate_.ForgetToken(request->token_id());
    spdlog::info("API token {} of {} revoked by {}", revoked->id(), revoked->user(), who.user);
    *response = *std::move(revoked);
    return grpc::Status::OK;
      });
}

grpc::Status AuthServiceImpl::ShareStudy(grpc::ServerContext* context,
                                         const v1::ShareRequest* request,
                                         v1::ShareResponse* response) {
  return gate_.Guard(
      *context, absl::StrCat(kAuthService, "ShareStudy"), *request,
      [&](const auth::Identity& who) -> grpc::Status {
    if (absl::Status invalid = CheckShare(*request, "name (the study)"); !invalid.ok()) {
      return ToGrpcStatus(invalid);
    }
    absl::StatusOr<v1::Study> study = store_.UpdateStudy(request->name(), [&](v1::Study& stored) {
      SetGrant(*stored.mutable_grants(), request->user(), request->role());
      return absl::OkStatus();
    });
    if (!study.ok()) return ToGrpcStatus(study.status());
    gate_.ForgetResource("study", request->name());
    response->set_owner(study->owner());
    *response->mutable_grants() = study->grants();
    return grpc::Status::OK;
      });
}

grpc::Status AuthServiceImpl::ShareJob(grpc::ServerContext* context, const v1::ShareRequest* request,
                                       v1::ShareResponse* response) {
  return gate_.Guard(
      *context, absl::StrCat(kAuthService, "ShareJob"), *request,
      [&](const auth::Identity& who) -> grpc::Status {
    if (absl::Status invalid = CheckShare(*request, "name (the job id)"); !invalid.ok()) {
      return ToGrpcStatus(invalid);
    }
    absl::StatusOr<v1::Job> job = store_.UpdateJob(request->name(), [&](v1::Job& stored) {
      SetGrant(*stored.mutable_grants(), request->user(), request->role());
      return absl::OkStatus();
    });
    if (!job.ok()) return ToGrpcStatus(job.status());
    gate_.ForgetResource("job", request->name());
    // The job's grant covers its study (its trials).
    absl::StatusOr<v1::Study> study = store_.UpdateStudy(job->study_name(), [&](v1::Study& stored) {
      SetGrant(*stored.mutable_grants(), request->user(), request->role());
      return absl::OkStatus();
    });
    if (!study.ok() && !absl::IsNotFound(study.status())) return ToGrpcStatus(study.status());
    gate_.ForgetResource("study", job->study_name());
    response->set_owner(job->owner());
    *response->mutable_grants() = job->grants();
    return grpc::Status::OK;
      });
}

grpc::Status AuthServiceImpl::WhoAmI(grpc::ServerContext* context, const v1::WhoAmIRequest* request,
                                     v1::WhoAmIResponse* response) {
  return gate_.Guard(
      *context, absl::StrCat(kAuthService, "WhoAmI"), *request,
      [&](const auth::Identity& who) -> grpc::Status {
    response->set_user(who.user);
    response->set_role(who.role);
    response->set_token_id(who.token_id);
    return grpc::Status::OK;
      });
}

}  // namespace vernier::tuner
