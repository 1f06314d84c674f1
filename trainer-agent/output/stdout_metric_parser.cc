#include "trainer-agent/output/stdout_metric_parser.h"

#include <cmath>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "metrics/metric_value.h"

namespace vernier::agent {
namespace {

// Keys that name the step rather than a metric, most specific first.
constexpr std::string_view kStepKeys[] = {"step", "global_step", "epoch"};
// Values quoted in warnings are cut to this length.
constexpr size_t kQuotedValueBytes = 40;

bool IsSeparator(char c) {
  return c == ' ' || c == '\t' || c == ',' || c == '\f' || c == '\v' || c == '\r' || c == '\n';
}

// Brackets and trailing punctuation around a token, as in "(loss=0.3)" or the
// "acc=0.9]" that ends a progress bar's postfix.
std::string_view TrimPunctuation(std::string_view token) {
  while (!token.empty() && (token.front() == '(' || token.front() == '[' || token.front() == '{')) {
    token.remove_prefix(1);
  }
  while (!token.empty() && (token.back() == ')' || token.back() == ']' || token.back() == '}' ||
                            token.back() == ';')) {
    token.remove_suffix(1);
  }
  return token;
}

int StepKeyRank(std::string_view name) {
  for (int rank = 0; rank < static_cast<int>(std::size(kStepKeys)); ++rank) {
    if (name == kStepKeys[rank]) return rank;
  }
  return -1;
}

std::string Quote(std::string_view value) {
  if (value.size() <= kQuotedValueBytes) return std::string(value);
  return absl::StrCat(std::string(value.substr(0, kQuotedValueBytes)), "...");
}

// Keras' progress lines: "1875/1875 [====] - 3s 2ms/step - loss: 0.2975 -
// accuracy: 0.9136" (Keras 3 starts the metrics with "- " after the bar too).
// A metric is "- NAME: VALUE" where the dash starts the line or follows a
// blank or a carriage return (a progress bar redraws the line with "\r", so
// the last, whole-epoch value of a name wins), which keeps free text such as
// "Note: 5 files" out.
void AppendKerasTokens(std::string_view line, std::vector<metrics::MetricToken>& tokens) {
  if (line.find(": ") == std::string_view::npos) return;
  for (size_t dash = line.find("- "); dash != std::string_view::npos;
       dash = line.find("- ", dash + 1)) {
    if (dash > 0 && line[dash - 1] != ' ' && line[dash - 1] != '\r' && line[dash - 1] != '\t') {
      continue;
    }
    const size_t name_start = dash + 2;
    const size_t colon = line.find(": ", name_start);
    if (colon == std::string_view::npos) return;
    const std::string_view name = line.substr(name_start, colon - name_start);
    if (!metrics::MetricValue::IsValidName(name)) continue;
    const size_t value_start = colon + 2;
    size_t value_end = value_start;
    while (value_end < line.size() && !IsSeparator(line[value_end])) ++value_end;
    if (value_end == value_start) continue;
    tokens.push_back({name, line.substr(value_start, value_end - value_start)});
  }
}

}  // namespace

StdoutMetricParser::StdoutMetricParser(std::shared_ptr<spdlog::logger> logger,
                                       size_t max_line_bytes)
    : StdoutMetricParser(std::move(logger),
                         StdoutMetricParserOptions{max_line_bytes, nullptr, ""}) {}

StdoutMetricParser::StdoutMetricParser(std::shared_ptr<spdlog::logger> logger,
                                       StdoutMetricParserOptions options)
    : logger_(std::move(logger)),
      options_(std::move(options)),
      splitter_(options_.max_line_bytes) {}

std::vector<v1::Measurement> StdoutMetricParser::Feed(std::string_view chunk) {
  std::vector<v1::Measurement> out;
  splitter_.Feed(chunk,
                 [&](std::string_view line, bool truncated) { OnLine(line, truncated, out); });
  return out;
}

std::vector<v1::Measurement> StdoutMetricParser::Finish() {
  std::vector<v1::Measurement> out;
  splitter_.Finish([&](std::string_view line, bool truncated) { OnLine(line, truncated, out); });
  return out;
}

void StdoutMetricParser::OnLine(std::string_view line, bool truncated,
                                std::vector<v1::Measurement>& out) {
  ++line_number_;
  if (truncated && warnings_.Count("long line")) {
    logger_->warn("output line {} is longer than {} bytes; parsed its first {} bytes only{}",
                  line_number_, splitter_.max_line_bytes(), splitter_.max_line_bytes(),
                  warnings_.Suffix("long line"));
  }
  std::optional<v1::Measurement> measurement = ParseLine(line);
  if (measurement.has_value()) out.push_back(*std::move(measurement));
}

std::vector<metrics::MetricToken> StdoutMetricParser::Tokens(std::string_view line) const {
  if (options_.pattern != nullptr) return options_.pattern->Extract(line);
  std::vector<metrics::MetricToken> tokens;
  size_t pos = 0;
  while (pos < line.size()) {
    while (pos < line.size() && IsSeparator(line[pos])) ++pos;
    size_t end = pos;
    while (end < line.size() && !IsSeparator(line[end])) ++end;
    const std::string_view token = TrimPunctuation(line.substr(pos, end - pos));
    pos = end;
    const size_t equals = token.find('=');
    if (equals == std::string_view::npos) continue;
    const std::string_view name = token.substr(0, equals);
    // In free text only what looks like a metric name counts.
    if (!metrics::MetricValue::IsValidName(name)) continue;
    tokens.push_back({name, token.substr(equals + 1)});
  }
  AppendKerasTokens(line, tokens);
  return tokens;
}

void StdoutMetricParser::Reject(std::string_view name, std::string_view value,
                                std::string_view why) {
  const std::string kind = absl::StrCat(std::string(why), std::string(name));
  if (!warnings_.Count(kind)) return;
  logger_->warn("output line {}: metric '{}' is {}; dropped ({}){}", line_number_, Quote(name),
                Quote(value), why, warnings_.Suffix(kind));
}

std::optional<v1::Measurement> StdoutMetricParser::ParseLine(std::string_view line) {
  const bool from_pattern = options_.pattern != nullptr;
  v1::Measurement measurement;
  std::optional<int64_t> step;
  int step_rank = static_cast<int>(std::size(kStepKeys));
  for (const auto& [name, text] : Tokens(line)) {
    if (!metrics::MetricValue::IsValidName(name)) {
      Reject(name, text, "not a metric name: names match [A-Za-z_][A-Za-z0-9_./-]*");
      continue;
    }
    const int rank = StepKeyRank(name);
    if (rank >= 0) {
      const std::optional<int64_t> parsed = metrics::MetricValue::ParseStep(text);
      if (parsed.has_value() && rank < step_rank) {
        step = parsed;
        step_rank = rank;
      }
      continue;
    }
    const std::optional<double> value = metrics::MetricValue::ParseNumber(text);
    if (!value.has_value()) {
      if (from_pattern || name == options_.objective) Reject(name, text, "not a number");
      continue;
    }
    if (!std::isfinite(*value)) {
      Reject(name, text, "only finite values are stored");
      continue;
    }
    v1::Metric* metric = nullptr;
    for (v1::Metric& existing : *measurement.mutable_metrics()) {
      if (existing.metric_id() == name) metric = &existing;
    }
    if (metric == nullptr) {
      metric = measurement.add_metrics();
      metric->set_metric_id(std::string(name));
    }
    metric->set_value(*value);
  }
  if (measurement.metrics().empty()) return std::nullopt;
  last_step_ = step.has_value() ? *step : last_step_ + 1;
  measurement.set_step(last_step_);
  return measurement;
}

}  // namespace vernier::agent
