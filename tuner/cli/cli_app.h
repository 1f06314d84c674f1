#ifndef VERNIER_TUNER_CLI_CLI_APP_H_
#define VERNIER_TUNER_CLI_CLI_APP_H_

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "tuner/cli/serve_command.h"

namespace vernier::cli {

// Exit codes of the `vernier` program.
inline constexpr int kExitSuccess = 0;
inline constexpr int kExitFailure = 1;  // the command ran and failed (server error, bad config)
inline constexpr int kExitUsage = 2;    // the command line itself is wrong

// Everything the program touches outside its arguments, so that tests can
// drive it with argv and captured streams.
struct CliDependencies {
  std::ostream* out = nullptr;
  std::ostream* err = nullptr;
  ServeCommand::RunServerFunction run_server;
  std::function<absl::Time()> now = [] { return absl::Now(); };
  absl::TimeZone time_zone = absl::LocalTimeZone();
  absl::Duration connect_timeout = absl::Seconds(3);
  absl::Duration rpc_timeout = absl::Seconds(30);
};

// The `vernier` command line: parses the arguments with CLI11, runs the one
// command they name and returns the exit code. Errors go to `err` as
// "error: CODE_NAME: message"; usage errors as CLI11 words them.
class CliApp {
 public:
  explicit CliApp(CliDependencies dependencies);

  // arguments[0] is the program name. Everything after the first `--` is the
  // trainer command of `jobs submit training`.
  int Run(const std::vector<std::string>& arguments) const;
  int Run(int argc, const char* const* argv) const;

 private:
  CliDependencies dependencies_;
};

}  // namespace vernier::cli

#endif  // VERNIER_TUNER_CLI_CLI_APP_H_
