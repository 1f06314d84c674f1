// Fuzzes the agent's reading of trainer output into measurements. The first
// byte picks how:
//   bits 0-1: 0: the default name=value format; 1 and 2: a metricRegex from
//             the docs; 3: the pattern is the input's first line (a pattern
//             that does not compile ends the run)
//   bit 2:    a 32-byte line limit instead of the default, so long lines are
//             cut
//   bits 3-7: the output is fed in chunks of 1 to 32 bytes
// Every measurement must carry at least one metric, each with a valid name
// and a finite value.
#include <spdlog/logger.h>
#include <spdlog/sinks/null_sink.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "fuzz/measurement_invariants.h"
#include "metrics/metric_pattern.h"
#include "trainer-agent/output/stdout_metric_parser.h"

using vernier::agent::StdoutMetricParser;
using vernier::agent::StdoutMetricParserOptions;
using vernier::metrics::MetricPattern;

namespace {

constexpr std::string_view kDocumentedPatterns[] = {
    R"((?P<name>\w+)\s*:\s*(?P<value>\S+))",
    R"(epoch (?P<epoch>\d+) .* val_acc (?P<accuracy>[-+.\deE]+))",
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static const auto logger =
      std::make_shared<spdlog::logger>("fuzz", std::make_shared<spdlog::sinks::null_sink_mt>());
  const uint8_t control = data[0];
  std::string_view output(reinterpret_cast<const char*>(data) + 1, size - 1);

  StdoutMetricParserOptions options;
  options.objective = "loss";
  if ((control & 4) != 0) options.max_line_bytes = 32;
  const int mode = control & 3;
  if (mode != 0) {
    std::string_view pattern;
    if (mode == 3) {
      const size_t newline = output.find('\n');
      if (newline == std::string_view::npos) return 0;
      pattern = output.substr(0, newline);
      output.remove_prefix(newline + 1);
    } else {
      pattern = kDocumentedPatterns[mode - 1];
    }
    absl::StatusOr<MetricPattern> compiled = MetricPattern::Compile(pattern);
    if (!compiled.ok()) {
      if (!absl::IsInvalidArgument(compiled.status())) std::abort();
      return 0;
    }
    options.pattern = std::make_shared<const MetricPattern>(*std::move(compiled));
  }

  StdoutMetricParser parser(logger, options);
  const size_t chunk = static_cast<size_t>(control >> 3) + 1;
  while (!output.empty()) {
    const size_t take = std::min(chunk, output.size());
    vernier::fuzz::CheckMeasurements(parser.Feed(output.substr(0, take)));
    output.remove_prefix(take);
  }
  vernier::fuzz::CheckMeasurements(parser.Finish());
  return 0;
}
