#ifndef VERNIER_AUTH_ROLES_H_
#define VERNIER_AUTH_ROLES_H_

#include <string>
#include "absl/strings/string_view.h"

#include "absl/status/statusor.h"
#include "vernier/v1/auth.pb.h"

namespace vernier::auth {

// "viewer", "developer", "admin", "agent" (lower case, as on the command line).
std::string RoleName(v1::Role role);
// A user's role from its name (case-insensitive): viewer, developer or
// admin; INVALID_ARGUMENT naming `what` and the roles otherwise.
absl::StatusOr<v1::Role> ParseUserRole(absl::string_view name, absl::string_view what);
// Whether `held` includes the rights of `needed` among the user roles
// (VIEWER < DEVELOPER < ADMIN). AGENT includes no user role and no user
// role includes AGENT.
bool RoleIncludes(v1::Role held, v1::Role needed);

}  // namespace vernier::auth

#endif  // VERNIER_AUTH_ROLES_H_
