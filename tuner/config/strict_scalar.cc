#include "tuner/config/strict_scalar.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <system_error>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "text/absl_view.h"

namespace vernier::config {
namespace {

using text::AbslView;

// std::from_chars takes '-' but not '+'; YAML allows both.
std::string_view WithoutPlusSign(std::string_view text) {
  if (text.size() > 1 && text[0] == '+' && text[1] != '-' && text[1] != '+') {
    text.remove_prefix(1);
  }
  return text;
}

bool IsYamlNonFinite(std::string_view text) {
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) text.remove_prefix(1);
  const std::string lower = absl::AsciiStrToLower(AbslView(text));
  return lower == ".inf" || lower == ".nan" || lower == "inf" || lower == "infinity" ||
         lower == "nan";
}

}  // namespace

absl::StatusOr<int64_t> ParseStrictInteger(std::string_view text) {
  const std::string_view digits = WithoutPlusSign(text);
  int64_t value = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (error == std::errc::result_out_of_range && end == digits.data() + digits.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "integer \"", AbslView(text), "\" is out of range [", std::numeric_limits<int64_t>::min(),
        ", ", std::numeric_limits<int64_t>::max(), "]"));
  }
  if (error != std::errc() || end != digits.data() + digits.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected an integer, got \"", AbslView(text), "\""));
  }
  return value;
}

absl::StatusOr<double> ParseStrictFiniteDouble(std::string_view text) {
  if (IsYamlNonFinite(text)) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected a finite number, got \"", AbslView(text), "\""));
  }
  const std::string_view number = WithoutPlusSign(text);
  double value = 0;
  const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (error == std::errc::result_out_of_range && end == number.data() + number.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("number \"", AbslView(text), "\" is out of the range of a double"));
  }
  if (error != std::errc() || end != number.data() + number.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected a number, got \"", AbslView(text), "\""));
  }
  if (!std::isfinite(value)) {
    return absl::InvalidArgumentError(
        absl::StrCat("expected a finite number, got \"", AbslView(text), "\""));
  }
  return value;
}

absl::StatusOr<bool> ParseStrictBoolean(std::string_view text) {
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  return absl::InvalidArgumentError(
      absl::StrCat("expected true or false, got \"", AbslView(text), "\""));
}

}  // namespace vernier::config
