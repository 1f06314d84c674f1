#include "text/control_chars.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "text/absl_view.h"
#include "text/utf8_text.h"

namespace vernier::text {
namespace {

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

std::string ControlChars::ForTerminal(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte < 0x80) {
      if (IsControl(text[i]) && text[i] != '\t' && text[i] != '\n') {
        out.append(Name(text[i]));
      } else {
        out.push_back(text[i]);
      }
      ++i;
      continue;
    }
    const size_t length = Utf8Text::ValidCharLength(text.substr(i));
    if (length == 0) {
      // Not UTF-8: a lone byte, which some terminals read as a C1 control.
      if (byte <= 0x9F) {
        out.append(absl::StrFormat("\\x%02x", byte));
      } else {
        out.push_back(text[i]);
      }
      ++i;
      continue;
    }
    // U+0080 to U+009F: 0xC2 0x80 to 0xC2 0x9F.
    const auto second = static_cast<unsigned char>(text[i + 1]);
    if (length == 2 && byte == 0xC2 && second <= 0x9F) {
      out.append(absl::StrFormat("\\u%04x", second));
    } else {
      out.append(text.substr(i, length));
    }
    i += length;
  }
  return out;
}

std::optional<std::string> ControlChars::Refusal(std::string_view field, std::string_view text) {
  const std::optional<size_t> at = Find(text);
  if (!at.has_value()) return std::nullopt;
  return absl::StrCat(AbslView(field), " contains a control character (", Name(text[*at]),
                      " at byte ", *at,
                      "); newlines, NUL and other control characters are not allowed");
}

}  // namespace vernier::text
