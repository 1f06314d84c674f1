#include "auth/roles.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace vernier::auth {

std::string RoleName(v1::Role role) {
  switch (role) {
    case v1::VIEWER:
      return "viewer";
    case v1::DEVELOPER:
      return "developer";
    case v1::ADMIN:
      return "admin";
    case v1::AGENT:
      return "agent";
    default:
      return "none";
  }
}

absl::StatusOr<v1::Role> ParseUserRole(absl::string_view name, absl::string_view what) {
  const std::string lower = absl::AsciiStrToLower(name);
  if (lower == "viewer") return v1::VIEWER;
  if (lower == "developer") return v1::DEVELOPER;
  if (lower == "admin") return v1::ADMIN;
  return absl::InvalidArgumentError(
      absl::StrCat(what, ": unknown role \"", name, "\"; use viewer, developer or admin"));
}

bool RoleIncludes(v1::Role held, v1::Role needed) {
  if (held == v1::AGENT || needed == v1::AGENT) return held == needed;
  if (needed == v1::ROLE_UNSPECIFIED) return true;
  return held != v1::ROLE_UNSPECIFIED && static_cast<int>(held) >= static_cast<int>(needed);
}

}  // namespace vernier::auth
