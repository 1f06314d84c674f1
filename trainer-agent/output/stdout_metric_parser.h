#ifndef VERNIER_TRAINER_AGENT_OUTPUT_STDOUT_METRIC_PARSER_H_
#define VERNIER_TRAINER_AGENT_OUTPUT_STDOUT_METRIC_PARSER_H_

#include <spdlog/logger.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "metrics/metric_pattern.h"
#include "trainer-agent/output/line_splitter.h"
#include "trainer-agent/output/warning_limiter.h"
#include "vernier/v1/study.pb.h"

namespace vernier::agent {

struct StdoutMetricParserOptions {
  static constexpr size_t kDefaultMaxLineBytes = 64 * 1024;

  size_t max_line_bytes = kDefaultMaxLineBytes;
  // The job's metricRegex; null: `name=value` tokens.
  std::shared_ptr<const metrics::MetricPattern> pattern;
  // The objective metric: a value of it that is not a number is worth a
  // warning even in the default format, where `mode=train` is just text.
  std::string objective;
};

// Turns a trainer's output into measurements.
//
// By default every whitespace- or comma-separated `name=value` token whose
// name matches [A-Za-z_][A-Za-z0-9_./-]* and whose whole value parses as a
// number is a metric; with a MetricPattern, the pattern's matches are. All
// metrics of one line form one measurement. `step=` (or `global_step=`, or
// else `epoch=`) with an integer value sets the measurement's step; a line
// without one gets the previous step plus one, so steps count 1, 2, 3, ...
// when the trainer never names them. NaN and infinite values are dropped with
// a warning since the service rejects them, and so are values that are not
// numbers where they were meant as metrics (a pattern's match, the objective).
// Output may arrive in chunks that split lines anywhere; lines longer than
// `max_line_bytes` are parsed from their first `max_line_bytes` bytes.
//
// The returned measurements carry step and metrics only; the caller stamps
// times and sequence numbers.
class StdoutMetricParser {
 public:
  static constexpr size_t kDefaultMaxLineBytes = StdoutMetricParserOptions::kDefaultMaxLineBytes;

  explicit StdoutMetricParser(std::shared_ptr<spdlog::logger> logger,
                              size_t max_line_bytes = kDefaultMaxLineBytes);
  StdoutMetricParser(std::shared_ptr<spdlog::logger> logger, StdoutMetricParserOptions options);

  std::vector<v1::Measurement> Feed(std::string_view chunk);
  // End of output: parses an unterminated last line.
  std::vector<v1::Measurement> Finish();

  // Parses one complete line; nullopt when it holds no usable metric.
  std::optional<v1::Measurement> ParseLine(std::string_view line);

 private:
  void OnLine(std::string_view line, bool truncated, std::vector<v1::Measurement>& out);
  std::vector<metrics::MetricToken> Tokens(std::string_view line) const;
  void Reject(std::string_view name, std::string_view value, std::string_view why);

  std::shared_ptr<spdlog::logger> logger_;
  StdoutMetricParserOptions options_;
  LineSplitter splitter_;
  WarningLimiter warnings_;
  int64_t last_step_ = 0;
  int64_t line_number_ = 0;
};

}  // namespace vernier::agent

#endif  // VERNIER_TRAINER_AGENT_OUTPUT_STDOUT_METRIC_PARSER_H_
