#include "tests/support/source_script.h"

#include <chrono>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "tests/support/subprocess.h"

namespace vernier::testing {

absl::StatusOr<std::string> RunSourceScript(const std::string& name,
                                            const std::vector<std::string>& args) {
  std::vector<std::string> argv = {SourcePath("scripts/" + name)};
  argv.insert(argv.end(), args.begin(), args.end());
  const CommandResult result = RunCommand(argv, std::chrono::seconds(120));
  if (result.exit_code == 0) return std::string(absl::StripAsciiWhitespace(result.out));
  return absl::UnavailableError(absl::StrCat("scripts/", name, " ", args.empty() ? "" : args[0],
                                             " exited with ", result.exit_code, ": ", result.err,
                                             result.out));
}

}  // namespace vernier::testing
