#ifndef VERNIER_AUTH_RESOURCE_FIELD_H_
#define VERNIER_AUTH_RESOURCE_FIELD_H_

#include <string>
#include "absl/strings/string_view.h"

#include "absl/status/statusor.h"
#include "google/protobuf/message.h"
#include "auth/permission_table.h"
#include "vernier/v1/auth.pb.h"

namespace vernier::auth {

// The string at `field_path` ("study_name", "study.name") of `request`;
// "" when a message on the way is unset. INVALID_ARGUMENT when the path
// names no string field of the message (a wrong permission table row).
absl::StatusOr<std::string> StringField(const google::protobuf::Message& request,
                                        absl::string_view field_path);
// The attempt an agent's request reports for: its `replica` message's
// study_name, trial_id and attempt.
absl::StatusOr<v1::AgentScope> ReplicaOf(const google::protobuf::Message& request,
                                         absl::string_view replica_field);
// The resource `request` names under `row` (the audit log's resource):
// the study, job or token id at its resource field, or for an agent's
// report "STUDY/trials/ID/attempts/N"; "" for none or a malformed request.
std::string ResourceNamed(const google::protobuf::Message& request, const MethodPermission& row);

}  // namespace vernier::auth

#endif  // VERNIER_AUTH_RESOURCE_FIELD_H_
