#include "tuner/user_attributes.h"

#include "absl/strings/str_cat.h"

namespace vernier::tuner {

absl::Status ApplyUserAttributes(const google::protobuf::Map<std::string, std::string>& set,
                                 const google::protobuf::RepeatedPtrField<std::string>& remove,
                                 const std::string& owner,
                                 google::protobuf::Map<std::string, std::string>& attributes) {
  for (const auto& [key, value] : set) {
    if (key.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("attributes: a user attribute of ", owner, " has an empty key"));
    }
    if (key.size() > kMaxUserAttributeKeyBytes) {
      return absl::InvalidArgumentError(
          absl::StrCat("attributes: the key \"", key.substr(0, 40), "...\" of ", owner, " has ",
                       key.size(), " bytes; at most ", kMaxUserAttributeKeyBytes));
    }
    if (value.size() > kMaxUserAttributeValueBytes) {
      return absl::InvalidArgumentError(
          absl::StrCat("attributes[\"", key, "\"]: the value has ", value.size(),
                       " bytes; at most ", kMaxUserAttributeValueBytes, " (", owner, ")"));
    }
  }
  google::protobuf::Map<std::string, std::string> result = attributes;
  for (const auto& [key, value] : set) result[key] = value;
  for (const std::string& key : remove) result.erase(key);
  if (result.size() > static_cast<size_t>(kMaxUserAttributes)) {
    return absl::InvalidArgumentError(absl::StrCat("attributes: ", owner, " would have ",
                                                   result.size(), " user attributes; at most ",
                                                   kMaxUserAttributes));
  }
  attributes = std::move(result);
  return absl::OkStatus();
}

}  // namespace vernier::tuner
