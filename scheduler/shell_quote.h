#ifndef VERNIER_SCHEDULER_SHELL_QUOTE_H_
#define VERNIER_SCHEDULER_SHELL_QUOTE_H_

#include <string>

#include "absl/strings/string_view.h"

namespace vernier::scheduler {

// `word` as a POSIX shell reads it back unchanged: as is when it holds only
// characters that need no quoting, else in single quotes (any byte but NUL
// survives, JSON and newlines included).
std::string ShellQuote(absl::string_view word);

}  // namespace vernier::scheduler

#endif  // VERNIER_SCHEDULER_SHELL_QUOTE_H_
