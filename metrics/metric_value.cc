#include "metrics/metric_value.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

namespace vernier::metrics {
namespace {

bool IsAsciiSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

}  // namespace

std::optional<double> MetricValue::ParseNumber(std::string_view text) {
  // strtod skips leading blanks; a value with them is not a bare number.
  if (text.empty() || IsAsciiSpace(text.front())) return std::nullopt;
  const std::string copy(text);  // strtod needs a terminated string.
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size()) return std::nullopt;
  // Underflow to a denormal or zero is still the number written; overflow to
  // infinity is reported as infinity so the caller drops it.
  return value;
}

std::optional<int64_t> MetricValue::ParseStep(std::string_view text) {
  const std::optional<double> value = ParseNumber(text);
  if (!value.has_value()) return std::nullopt;
  return ToStep(*value);
}

std::optional<int64_t> MetricValue::ToStep(double value) {
  if (!std::isfinite(value) || std::trunc(value) != value) return std::nullopt;
  // 2^63 itself is out of range; doubles below it convert exactly.
  if (value >= 9223372036854775808.0 || value < -9223372036854775808.0) return std::nullopt;
  return static_cast<int64_t>(value);
}

bool MetricValue::IsValidName(std::string_view name) {
  if (name.empty()) return false;
  const auto is_letter = [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
  };
  if (!is_letter(name.front())) return false;
  for (char c : name.substr(1)) {
    if (!is_letter(c) && !(c >= '0' && c <= '9') && c != '.' && c != '/' && c != '-') {
      return false;
    }
  }
  return true;
}

}  // namespace vernier::metrics
