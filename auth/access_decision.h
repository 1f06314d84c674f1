#ifndef VERNIER_AUTH_ACCESS_DECISION_H_
#define VERNIER_AUTH_ACCESS_DECISION_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "auth/identity.h"
#include "auth/permission_table.h"
#include "vernier/v1/auth.pb.h"

namespace vernier::auth {

// The study or job a call names, as stored: its owner and grants.
struct ResourceAccess {
  // "study" or "job".
  std::string kind;
  std::string name;
  // Empty for a resource stored before owners existed: only an ADMIN
  // changes it.
  std::string owner;
  std::vector<v1::AccessGrant> grants;
};

// Whether `who` may make the call `permission` describes. `resource` is the
// stored study or job the call names (nullptr when there is none, e.g. it
// does not exist: the handler then answers NOT_FOUND); `replica` is the
// attempt an agent's call reports for. OK, or PERMISSION_DENIED naming the
// method, the caller and what it would take.
absl::Status DecideAccess(const Identity& who, const MethodPermission& permission,
                          const ResourceAccess* resource, const v1::AgentScope* replica);

}  // namespace vernier::auth

#endif  // VERNIER_AUTH_ACCESS_DECISION_H_
