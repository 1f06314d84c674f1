#include "tuner/cli/output_format.h"

#include <google/protobuf/util/json_util.h>

#include "absl/strings/str_cat.h"

namespace vernier::cli {

absl::StatusOr<OutputFormat> ParseOutputFormat(std::string_view name) {
  if (name == "table") return OutputFormat::kTable;
  if (name == "json") return OutputFormat::kJson;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown output format \"", std::string(name), "\" (expected table or json)"));
}

absl::StatusOr<std::string> ToJson(const google::protobuf::Message& message, JsonLayout layout) {
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = layout == JsonLayout::kIndented;
  std::string json;
  const auto status = google::protobuf::util::MessageToJsonString(message, &json, options);
  if (!status.ok()) {
    return absl::InternalError(absl::StrCat("cannot print ", message.GetTypeName(),
                                            " as JSON: ", std::string(status.message())));
  }
  if (layout == JsonLayout::kIndented && !json.empty() && json.back() == '\n') json.pop_back();
  return json;
}

}  // namespace vernier::cli
