#include "auth/resource_field.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace vernier::auth {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;

absl::Status NoSuchField(const Message& message, absl::string_view path) {
  return absl::InvalidArgumentError(absl::StrCat(message.GetDescriptor()->full_name(),
                                                 " has no field ", path, " of the right type"));
}

// The message holding the last part of `path`, or nullptr when one on the
// way is unset; sets `last` to that part's field.
absl::StatusOr<const Message*> Walk(const Message& root, absl::string_view path,
                                    const FieldDescriptor*& last) {
  const Message* message = &root;
  const std::vector<absl::string_view> parts = absl::StrSplit(path, '.');
  for (size_t i = 0; i < parts.size(); ++i) {
    const FieldDescriptor* field = message->GetDescriptor()->FindFieldByName(std::string(parts[i]));
    if (field == nullptr || field->is_repeated()) return NoSuchField(root, path);
    if (i + 1 == parts.size()) {
      last = field;
      return message;
    }
    if (field->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) return NoSuchField(root, path);
    if (!message->GetReflection()->HasField(*message, field)) return nullptr;
    message = &message->GetReflection()->GetMessage(*message, field);
  }
  return NoSuchField(root, path);
}

}  // namespace

absl::StatusOr<std::string> StringField(const Message& request, absl::string_view field_path) {
  const FieldDescriptor* field = nullptr;
  absl::StatusOr<const Message*> holder = Walk(request, field_path, field);
  if (!holder.ok()) return holder.status();
  if (*holder == nullptr) return std::string();
  if (field->cpp_type() != FieldDescriptor::CPPTYPE_STRING) return NoSuchField(request, field_path);
  return (*holder)->GetReflection()->GetString(**holder, field);
}

absl::StatusOr<v1::AgentScope> ReplicaOf(const Message& request, absl::string_view replica_field) {
  const FieldDescriptor* field = nullptr;
  absl::StatusOr<const Message*> holder = Walk(request, replica_field, field);
  if (!holder.ok()) return holder.status();
  v1::AgentScope scope;
  if (*holder == nullptr || field->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) {
    if (*holder != nullptr) return NoSuchField(request, replica_field);
    return scope;
  }
  const Message& replica = (*holder)->GetReflection()->GetMessage(**holder, field);
  const auto* descriptor = replica.GetDescriptor();
  const auto* reflection = replica.GetReflection();
  const FieldDescriptor* study = descriptor->FindFieldByName("study_name");
  const FieldDescriptor* trial = descriptor->FindFieldByName("trial_id");
  const FieldDescriptor* attempt = descriptor->FindFieldByName("attempt");
  if (study == nullptr || trial == nullptr || attempt == nullptr) {
    return NoSuchField(request, absl::StrCat(replica_field, ".{study_name,trial_id,attempt}"));
  }
  scope.set_study_name(reflection->GetString(replica, study));
  scope.set_trial_id(reflection->GetInt64(replica, trial));
  scope.set_attempt(reflection->GetInt32(replica, attempt));
  return scope;
}

std::string ResourceNamed(const google::protobuf::Message& request, const MethodPermission& row) {
  if (row.resource_field.empty()) return "";
  if (row.ownership == Ownership::kAgentAttempt) {
    absl::StatusOr<v1::AgentScope> replica = ReplicaOf(request, row.resource_field);
    if (!replica.ok()) return "";
    return absl::StrCat(replica->study_name(), "/trials/", replica->trial_id(), "/attempts/",
                        replica->attempt());
  }
  absl::StatusOr<std::string> name = StringField(request, row.resource_field);
  return name.ok() ? *name : "";
}

}  // namespace vernier::auth
