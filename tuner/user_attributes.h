#ifndef VERNIER_TUNER_USER_ATTRIBUTES_H_
#define VERNIER_TUNER_USER_ATTRIBUTES_H_

#include <cstddef>
#include <string>

#include "absl/status/status.h"
#include "google/protobuf/map.h"
#include "google/protobuf/repeated_ptr_field.h"

namespace vernier::tuner {

// The limits on a study's or a trial's user attributes
// (StudyService.SetStudyUserAttributes).
inline constexpr size_t kMaxUserAttributeKeyBytes = 256;
inline constexpr size_t kMaxUserAttributeValueBytes = 64 * 1024;
inline constexpr int kMaxUserAttributes = 100;

// Applies `set` and then `remove` to `attributes` (a study's or a trial's
// user attributes; `owner` names it in errors, e.g. "study \"s\""), or
// changes nothing and answers INVALID_ARGUMENT naming the key that is empty
// or too long, or whose value is too long, or the count past the limit
// (protobuf has checked that both are UTF-8). Pure.
absl::Status ApplyUserAttributes(const google::protobuf::Map<std::string, std::string>& set,
                                 const google::protobuf::RepeatedPtrField<std::string>& remove,
                                 const std::string& owner,
                                 google::protobuf::Map<std::string, std::string>& attributes);

}  // namespace vernier::tuner

#endif  // VERNIER_TUNER_USER_ATTRIBUTES_H_
