#ifndef VERNIER_TUNER_CLI_COMMAND_CONTEXT_H_
#define VERNIER_TUNER_CLI_COMMAND_CONTEXT_H_

#include <functional>
#include <ostream>

#include "absl/time/time.h"
#include "tuner/cli/output_format.h"

namespace vernier::cli {

// Where and how a client command prints. The clock and the time zone are
// injected so that tests render durations and times deterministically.
struct CommandContext {
  std::ostream* out = nullptr;
  OutputFormat format = OutputFormat::kTable;
  absl::TimeZone time_zone = absl::UTCTimeZone();
  std::function<absl::Time()> now = [] { return absl::Now(); };
};

}  // namespace vernier::cli

#endif  // VERNIER_TUNER_CLI_COMMAND_CONTEXT_H_
