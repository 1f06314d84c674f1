#include "trainer-agent/stdout_metric_parser.h"

#include <cmath>
#include <string>
#include <utility>

#include "absl/strings/string_view.h"
#include "trainer-agent/metric_value.h"

namespace vernier::agent {
namespace {

// Keys that name the step rather than a metric, most specific first.
constexpr std::string_view kStepKeys[] = {"step", "global_step", "epoch"};

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

}  // namespace

StdoutMetricParser::StdoutMetricParser(std::shared_ptr<spdlog::logger> logger,
                                       size_t max_line_bytes)
    : logger_(std::move(logger)), splitter_(max_line_bytes) {}

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
  if (truncated) {
    logger_->warn("output line {} is longer than {} bytes; parsed its first {} bytes only",
                  line_number_, splitter_.max_line_bytes(), splitter_.max_line_bytes());
  }
  std::optional<v1::Measurement> measurement = ParseLine(line);
  if (measurement.has_value()) out.push_back(*std::move(measurement));
}

std::optional<v1::Measurement> StdoutMetricParser::ParseLine(std::string_view line) {
  v1::Measurement measurement;
  std::optional<int64_t> step;
  int step_rank = static_cast<int>(std::size(kStepKeys));
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
    const std::string_view text = token.substr(equals + 1);
    if (!MetricValue::IsValidName(name)) continue;

    const int rank = StepKeyRank(name);
    if (rank >= 0) {
      const std::optional<int64_t> parsed = MetricValue::ParseStep(text);
      if (parsed.has_value() && rank < step_rank) {
        step = parsed;
        step_rank = rank;
      }
      continue;
    }
    const std::optional<double> value = MetricValue::ParseNumber(text);
    if (!value.has_value()) continue;
    if (!std::isfinite(*value)) {
      logger_->warn("output line {}: metric '{}' is {}; dropped (only finite values are stored)",
                    line_number_, name, text);
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
