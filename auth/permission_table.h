#ifndef VERNIER_AUTH_PERMISSION_TABLE_H_
#define VERNIER_AUTH_PERMISSION_TABLE_H_

#include <span>
#include "absl/strings/string_view.h"

#include "vernier/v1/auth.pb.h"

namespace vernier::auth {

// Which resource a call must be allowed on, besides the caller's role.
enum class Ownership {
  // The role alone decides (reads, creating something new, tokens).
  kNone,
  // Changing a study: its owner, a user it (or its job) is shared with as
  // DEVELOPER, or an ADMIN.
  kStudyWrite,
  // Changing a job: its owner, a DEVELOPER grant on it, or an ADMIN.
  kJobWrite,
  // Sharing: the owner or an ADMIN only.
  kStudyOwner,
  kJobOwner,
  // An agent's report: only the credential of that very trial attempt
  // (the request's `replica`: study, trial, attempt).
  kAgentAttempt,
};

// One row of the table: an RPC, the least role that may call it, the
// ownership rule, and the request field naming the resource ("" for none;
// a dotted path such as "study.name" reaches into a message field).
struct MethodPermission {
  // gRPC's path: "/vernier.v1.StudyService/GetStudy".
  absl::string_view method;
  v1::Role min_role;
  Ownership ownership;
  absl::string_view resource_field;
  // Changes something; else a read.
  bool mutating;
  // A change that writes data (a measurement, a heartbeat), not
  // configuration or state: data access in the audit log, as AI Platform
  // counts writing data (docs/security.md), so recorded only with
  // --audit-data-access.
  bool data_write = false;
};

// Admin activity, which the audit log always records: a change that is not
// a data write.
inline bool IsAdminActivity(const MethodPermission& row) {
  return row.mutating && !row.data_write;
}

// Every RPC of every Vernier service; a test checks it against the proto
// descriptors.
std::span<const MethodPermission> PermissionTable();
// The row of `method` (gRPC's path), or nullptr: a method with no row is
// refused.
const MethodPermission* FindPermission(absl::string_view method);

}  // namespace vernier::auth

#endif  // VERNIER_AUTH_PERMISSION_TABLE_H_
