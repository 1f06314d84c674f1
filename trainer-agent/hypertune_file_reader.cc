#include "trainer-agent/hypertune_file_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <functional>
#include <utility>
#include <variant>

#include "trainer-agent/flat_json_object_parser.h"
#include "trainer-agent/metric_value.h"

namespace vernier::agent {
namespace {

// Fields the library writes beside the metric.
constexpr std::string_view kNonMetricKeys[] = {"checkpoint_path", "global_step", "timestamp",
                                               "trial"};

size_t HashBytes(std::string_view bytes) { return std::hash<std::string_view>{}(bytes); }

bool IsBlank(std::string_view line) {
  return std::all_of(line.begin(), line.end(),
                     [](char c) { return c == ' ' || c == '\t' || c == '\r'; });
}

// Non-blank lines of `text`; the last one may lack its newline.
std::vector<std::string_view> SplitRecords(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!IsBlank(line)) lines.push_back(line);
    start = end + 1;
  }
  return lines;
}

// A JSON number, or a string holding one (the library writes str(value)).
std::optional<double> NumericValue(const JsonScalar& value) {
  if (const double* number = std::get_if<double>(&value)) return *number;
  if (const std::string* text = std::get_if<std::string>(&value)) {
    return MetricValue::ParseNumber(*text);
  }
  return std::nullopt;
}

}  // namespace

HypertuneFileReader::HypertuneFileReader(std::string path, std::shared_ptr<spdlog::logger> logger)
    : path_(std::move(path)), logger_(std::move(logger)), consumed_hash_(HashBytes("")) {}

std::vector<v1::Measurement> HypertuneFileReader::Poll() { return Read(/*writer_exited=*/false); }

std::vector<v1::Measurement> HypertuneFileReader::Finish() { return Read(/*writer_exited=*/true); }

std::vector<v1::Measurement> HypertuneFileReader::Read(bool writer_exited) {
  const auto report_error = [this](std::string message) {
    // A persistent problem is logged once, not on every poll.
    if (message != last_error_) logger_->warn("hypertune metrics file {}", message);
    last_error_ = std::move(message);
  };
  const int fd = open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno != ENOENT) report_error(fmt::format("{}: cannot open: {}", path_, strerror(errno)));
    return {};
  }
  struct stat info {};
  if (fstat(fd, &info) != 0) {
    report_error(fmt::format("{}: cannot stat: {}", path_, strerror(errno)));
    close(fd);
    return {};
  }
  // Stamped before reading: a write racing the read changes the stamp, and
  // the next poll reads the file again.
  const FileStamp stamp{
      static_cast<uint64_t>(info.st_dev), static_cast<uint64_t>(info.st_ino),
      static_cast<int64_t>(info.st_size),
      static_cast<int64_t>(info.st_mtim.tv_sec) * 1'000'000'000 + info.st_mtim.tv_nsec};
  if (!writer_exited && last_stamp_ == stamp) {
    close(fd);
    return {};
  }
  std::string content;
  char buffer[64 * 1024];
  while (true) {
    const ssize_t got = read(fd, buffer, sizeof(buffer));
    if (got > 0) {
      content.append(buffer, static_cast<size_t>(got));
    } else if (got == 0) {
      break;
    } else if (errno != EINTR) {
      report_error(fmt::format("{}: cannot read: {}", path_, strerror(errno)));
      close(fd);
      return {};
    }
  }
  close(fd);
  last_stamp_ = stamp;
  last_error_.clear();

  std::string_view complete = content;
  if (!writer_exited) {
    const size_t last_newline = complete.rfind('\n');
    complete = last_newline == std::string_view::npos ? std::string_view()
                                                      : complete.substr(0, last_newline + 1);
  }
  std::vector<v1::Measurement> measurements;
  for (std::string_view line : NewLines(complete, SplitRecords(complete))) {
    emitted_lines_.emplace_back(line);
    if (emitted_lines_.size() > kRememberedRecords) emitted_lines_.pop_front();
    std::optional<v1::Measurement> measurement = ToMeasurement(line);
    if (measurement.has_value()) measurements.push_back(*std::move(measurement));
  }
  return measurements;
}

std::vector<std::string_view> HypertuneFileReader::NewLines(
    std::string_view complete, const std::vector<std::string_view>& lines) {
  if (consumed_bytes_ <= complete.size() &&
      HashBytes(complete.substr(0, consumed_bytes_)) == consumed_hash_) {
    std::vector<std::string_view> appended = SplitRecords(complete.substr(consumed_bytes_));
    consumed_bytes_ = complete.size();
    consumed_hash_ = HashBytes(complete);
    return appended;
  }
  // The file was rewritten. Place its first line at the earliest position of
  // the emitted history where the lines agree for as long as both run; that
  // keeps the largest overlap, so only lines past the history are new.
  const size_t history = emitted_lines_.size();
  size_t offset = 0;
  for (; offset < history; ++offset) {
    const size_t overlap = std::min(lines.size(), history - offset);
    bool agrees = true;
    for (size_t i = 0; i < overlap && agrees; ++i) {
      agrees = lines[i] == emitted_lines_[offset + i];
    }
    if (agrees) break;
  }
  const size_t already_emitted = history - offset;
  if (lines.size() < already_emitted) {
    // Caught in the middle of a rewrite: the lines so far repeat the history.
    return {};
  }
  consumed_bytes_ = complete.size();
  consumed_hash_ = HashBytes(complete);
  return std::vector<std::string_view>(lines.begin() + static_cast<std::ptrdiff_t>(already_emitted),
                                       lines.end());
}

std::optional<v1::Measurement> HypertuneFileReader::ToMeasurement(std::string_view line) {
  ++record_count_;
  absl::StatusOr<std::vector<JsonField>> fields = FlatJsonObjectParser::Parse(line);
  if (!fields.ok()) {
    logger_->warn("hypertune metrics file {} record {}: {}; skipped", path_, record_count_,
                  fields.status().ToString());
    return std::nullopt;
  }
  v1::Measurement measurement;
  std::optional<int64_t> step;
  for (const JsonField& field : *fields) {
    if (field.key == "global_step") {
      if (const double* number = std::get_if<double>(&field.value)) {
        step = MetricValue::ToStep(*number);
      } else if (const std::string* text = std::get_if<std::string>(&field.value)) {
        step = MetricValue::ParseStep(*text);
      }
      continue;
    }
    if (std::find(std::begin(kNonMetricKeys), std::end(kNonMetricKeys), field.key) !=
            std::end(kNonMetricKeys) ||
        !MetricValue::IsValidName(field.key)) {
      continue;
    }
    const std::optional<double> value = NumericValue(field.value);
    if (!value.has_value()) continue;
    if (!std::isfinite(*value)) {
      logger_->warn(
          "hypertune metrics file {} record {}: metric '{}' is {}; dropped (only finite values are "
          "stored)",
          path_, record_count_, field.key, *value);
      continue;
    }
    v1::Metric* metric = measurement.add_metrics();
    metric->set_metric_id(field.key);
    metric->set_value(*value);
  }
  if (measurement.metrics().empty()) return std::nullopt;
  // The library writes global_step 0 when the trainer gave none.
  last_step_ = step.has_value() && *step != 0 ? *step : last_step_ + 1;
  measurement.set_step(last_step_);
  return measurement;
}

}  // namespace vernier::agent
