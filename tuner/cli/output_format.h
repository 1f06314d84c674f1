#ifndef VERNIER_TUNER_CLI_OUTPUT_FORMAT_H_
#define VERNIER_TUNER_CLI_OUTPUT_FORMAT_H_

#include <google/protobuf/message.h>

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace vernier::cli {

enum class OutputFormat { kTable, kJson };

// "table" or "json"; INVALID_ARGUMENT otherwise.
absl::StatusOr<OutputFormat> ParseOutputFormat(std::string_view name);

enum class JsonLayout {
  kIndented,  // one readable document per command
  kOneLine,   // one document per line, for streams
};

// The proto3 JSON mapping (camelCase field names, enums by name), as
// google::protobuf::util::MessageToJsonString prints it.
absl::StatusOr<std::string> ToJson(const google::protobuf::Message& message, JsonLayout layout);

}  // namespace vernier::cli

#endif  // VERNIER_TUNER_CLI_OUTPUT_FORMAT_H_
