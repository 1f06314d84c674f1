#include "scheduler/shell_quote.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <string_view>

#include "text/control_chars.h"

namespace vernier::scheduler {

std::string ShellQuote(absl::string_view word) {
  const bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           absl::string_view("_-./=:,+@%").find(c) != absl::string_view::npos;
  });
  if (plain) return std::string(word);
  std::string quoted = "'";
  for (char c : word) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted += c;
    }
  }
  return quoted + "'";
}

absl::Status RequireOneLine(absl::string_view field, absl::string_view value) {
  std::optional<std::string> refusal = text::ControlChars::Refusal(
      std::string_view(field.data(), field.size()), std::string_view(value.data(), value.size()));
  if (!refusal.has_value()) return absl::OkStatus();
  return absl::InvalidArgumentError(*std::move(refusal));
}

}  // namespace vernier::scheduler
