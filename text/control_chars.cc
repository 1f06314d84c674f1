#include "text/control_chars.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace vernier::text {
namespace {

// Debian's abseil keeps its own string_view type, which StrCat needs.
absl::string_view AbslView(std::string_view text) { return {text.data(), text.size()}; }

bool IsControl(char c) {
  const auto byte = static_cast<unsigned char>(c);
  return byte < 0x20 || byte == 0x7F;
}

}  // namespace

std::optional<size_t> ControlChars::Find(std::string_view text) {
  for (size_t i = 0; i < text.size(); ++i) {
    if (IsControl(text[i])) return i;
  }
  return std::nullopt;
}

std::string ControlChars::Name(char c) {
  switch (c) {
    case '\n':
      return "\\n";
    case '\r':
      return "\\r";
    case '\t':
      return "\\t";
    case '\0':
      return "\\0";
    default:
      return absl::StrFormat("\\x%02x", static_cast<unsigned char>(c));
  }
}

std::string ControlChars::Escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '\\') {
      out.append("\\\\");
    } else if (IsControl(c)) {
      out.append(Name(c));
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::optional<std::string> ControlChars::Refusal(std::string_view field, std::string_view text) {
  const std::optional<size_t> at = Find(text);
  if (!at.has_value()) return std::nullopt;
  return absl::StrCat(AbslView(field), " contains a control character (", Name(text[*at]), " at byte ", *at,
                      "); newlines, NUL and other control characters are not allowed");
}

}  // namespace vernier::text
