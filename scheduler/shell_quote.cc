#include "scheduler/shell_quote.h"

#include <algorithm>
#include <cctype>

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

}  // namespace vernier::scheduler
