#ifndef VERNIER_TUNER_CONFIG_STRICT_SCALAR_H_
#define VERNIER_TUNER_CONFIG_STRICT_SCALAR_H_

#include <cstdint>
#include <string_view>

#include "absl/status/statusor.h"

namespace vernier::config {

// Conversions of YAML scalar text that must consume the whole text: "10abc"
// or "1.5" is not an integer, "yes" is not a boolean. Errors are
// INVALID_ARGUMENT and quote the text, e.g. `expected an integer, got "ten"`;
// the caller puts the location in front.

// Decimal, with an optional sign.
absl::StatusOr<int64_t> ParseStrictInteger(std::string_view text);

// Decimal or scientific notation; infinities and NaN (".inf", ".nan", "nan")
// are rejected because no bound or value of a search space may be one.
absl::StatusOr<double> ParseStrictFiniteDouble(std::string_view text);

// YAML 1.2's core schema: true, True, TRUE, false, False, FALSE.
absl::StatusOr<bool> ParseStrictBoolean(std::string_view text);

}  // namespace vernier::config

#endif  // VERNIER_TUNER_CONFIG_STRICT_SCALAR_H_
