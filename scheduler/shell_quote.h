#ifndef VERNIER_SCHEDULER_SHELL_QUOTE_H_
#define VERNIER_SCHEDULER_SHELL_QUOTE_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace vernier::scheduler {

// `word` as a POSIX shell reads it back unchanged: as is when it holds only
// characters that need no quoting, else in single quotes (any byte but NUL
// survives, JSON and newlines included).
std::string ShellQuote(absl::string_view word);

// OK when `value` can go on a line of a script, a directive (#SBATCH) or a
// comment: no control character (newline, CR, NUL, other C0, DEL), which
// would end the line and make what follows a command or another directive.
// Else InvalidArgument naming `field` and the character.
absl::Status RequireOneLine(absl::string_view field, absl::string_view value);

}  // namespace vernier::scheduler

#endif  // VERNIER_SCHEDULER_SHELL_QUOTE_H_
