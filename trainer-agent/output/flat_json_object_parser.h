#ifndef VERNIER_TRAINER_AGENT_OUTPUT_FLAT_JSON_OBJECT_PARSER_H_
#define VERNIER_TRAINER_AGENT_OUTPUT_FLAT_JSON_OBJECT_PARSER_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"

namespace vernier::agent {

// A JSON value other than an object or array. Python's json module writes
// NaN, Infinity and -Infinity for non-finite floats; they parse as doubles.
using JsonScalar = std::variant<std::nullptr_t, bool, double, std::string>;

struct JsonField {
  std::string key;
  JsonScalar value;
};

// Parses one JSON object whose values are all scalars, such as a line of a
// cloudml-hypertune metrics file. Fields keep their order; a repeated key
// appears twice. Nested objects and arrays are rejected, since no metric
// record has them.
class FlatJsonObjectParser {
 public:
  // Errors are INVALID_ARGUMENT naming the 1-based column and what was expected.
  static absl::StatusOr<std::vector<JsonField>> Parse(std::string_view text);

 private:
  explicit FlatJsonObjectParser(std::string_view text) : text_(text) {}

  absl::StatusOr<std::vector<JsonField>> ParseObject();
  absl::StatusOr<JsonScalar> ParseValue(std::string_view key);
  absl::StatusOr<std::string> ParseString();
  absl::StatusOr<double> ParseNumber();
  absl::Status ParseUnicodeEscape(std::string& out);
  absl::Status Error(std::string_view what) const;
  void SkipWhitespace();
  bool Consume(std::string_view literal);

  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace vernier::agent

#endif  // VERNIER_TRAINER_AGENT_OUTPUT_FLAT_JSON_OBJECT_PARSER_H_
