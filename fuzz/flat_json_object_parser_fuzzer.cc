// Fuzzes the agent's flat JSON parser (one line of a hypertune metrics
// file): any text either gives fields or INVALID_ARGUMENT.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "trainer-agent/output/flat_json_object_parser.h"

using vernier::agent::FlatJsonObjectParser;
using vernier::agent::JsonField;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const absl::StatusOr<std::vector<JsonField>> fields = FlatJsonObjectParser::Parse(text);
  if (!fields.ok() && !absl::IsInvalidArgument(fields.status())) std::abort();
  return 0;
}
