#ifndef VERNIER_HTTP_REQUEST_FIELDS_H_
#define VERNIER_HTTP_REQUEST_FIELDS_H_

#include "absl/strings/string_view.h"

#include <google/protobuf/message.h>

#include "absl/status/status.h"

namespace vernier::http {

// Sets the field `name` of a request message (its proto name, page_size, or
// its JSON name, pageSize) from the text of a query parameter or a path
// segment, by the field's type: numbers, true/false, enum names (or
// numbers), strings. A repeated field gets one more element per call.
// INVALID_ARGUMENT naming the parameter when there is no such scalar field or
// the text is not of its type; the message keeps its other fields.
absl::Status SetFieldFromText(absl::string_view name, absl::string_view text,
                              google::protobuf::Message& message);

}  // namespace vernier::http

#endif  // VERNIER_HTTP_REQUEST_FIELDS_H_
