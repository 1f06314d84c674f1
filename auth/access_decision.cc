#include "auth/access_decision.h"

#include "absl/strings/str_cat.h"
#include "auth/roles.h"

namespace vernier::auth {
namespace {

std::string Caller(const Identity& who) {
  return absl::StrCat(who.user, " (", RoleName(who.role), ")");
}

bool HasGrant(const ResourceAccess& resource, const std::string& user, v1::Role needed) {
  for (const v1::AccessGrant& grant : resource.grants) {
    if (grant.user() == user && RoleIncludes(grant.role(), needed)) return true;
  }
  return false;
}

std::string DescribeAttempt(const v1::AgentScope& scope) {
  return absl::StrCat("trial ", scope.trial_id(), " of study \"", scope.study_name(),
                      "\", attempt ", scope.attempt());
}

}  // namespace

absl::Status DecideAccess(const Identity& who, const MethodPermission& permission,
                          const ResourceAccess* resource, const v1::AgentScope* replica) {
  if (permission.ownership == Ownership::kAgentAttempt) {
    if (who.role != v1::AGENT) {
      return absl::PermissionDeniedError(absl::StrCat(
          permission.method, " is for a trial's own agent, with the credential the server gave "
                             "that trial attempt; ", Caller(who), " is not one"));
    }
    const v1::AgentScope& mine = who.agent_scope;
    if (replica == nullptr || replica->study_name() != mine.study_name() ||
        replica->trial_id() != mine.trial_id() || replica->attempt() != mine.attempt()) {
      return absl::PermissionDeniedError(absl::StrCat(
          permission.method, ": this agent credential is for ", DescribeAttempt(mine),
          " only, not ", replica == nullptr ? "a call without a replica" : DescribeAttempt(*replica)));
    }
    return absl::OkStatus();
  }
  if (who.role == v1::AGENT) {
    return absl::PermissionDeniedError(absl::StrCat(
        permission.method, " needs the ", RoleName(permission.min_role),
        " role; an agent's credential may only report for its own trial attempt"));
  }
  if (!RoleIncludes(who.role, permission.min_role)) {
    return absl::PermissionDeniedError(absl::StrCat(permission.method, " needs the ",
                                                    RoleName(permission.min_role), " role; ",
                                                    Caller(who), " has ", RoleName(who.role)));
  }
  if (permission.ownership == Ownership::kNone || who.role == v1::ADMIN || resource == nullptr) {
    return absl::OkStatus();
  }
  if (!resource->owner.empty() && resource->owner == who.user) return absl::OkStatus();
  const bool owner_only = permission.ownership == Ownership::kStudyOwner ||
                          permission.ownership == Ownership::kJobOwner;
  if (!owner_only && HasGrant(*resource, who.user, v1::DEVELOPER)) return absl::OkStatus();
  const std::string owner =
      resource->owner.empty() ? "no owner: made before owners existed" : resource->owner;
  return absl::PermissionDeniedError(absl::StrCat(
      permission.method, ": ", Caller(who), " may not change ", resource->kind, " \"",
      resource->name, "\" (owner ", owner, "); it takes ",
      owner_only ? "its owner or an admin"
                 : absl::StrCat("its owner, a developer it is shared with (vernier ",
                                resource->kind == "study" ? "studies" : "jobs",
                                " share), or an admin")));
}

}  // namespace vernier::auth
