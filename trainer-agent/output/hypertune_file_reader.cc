#include "trainer-agent/output/hypertune_file_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <functional>
#include <iterator>
#include <utility>
#include <variant>

#include "absl/strings/str_cat.h"
#include "metrics/metric_value.h"
#include "trainer-agent/output/flat_json_object_parser.h"

namespace vernier::agent {
namespace {

// Fields the library writes beside the metric.
constexpr std::string_view kNonMetricKeys[] = {"checkpoint_path", "global_step", "timestamp",
                                               "trial"};

// What ends a record: a newline, or a NUL (the hole of a sparse file).
constexpr std::string_view kSeparators("\n\0", 2);

bool IsBlank(std::string_view line) {
  return std::all_of(line.begin(), line.end(),
                     [](char c) { return c == ' ' || c == '\t' || c == '\r'; });
}

// Non-blank lines of `text`; the last one may lack its newline.
std::vector<std::string_view> SplitRecords(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < text.size()) {
    // Runs of separators (a hole of NULs) are skipped at once.
    start = text.find_first_not_of(kSeparators, start);
    if (start == std::string_view::npos) break;
    size_t end = text.find_first_of(kSeparators, start);
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
    return metrics::MetricValue::ParseNumber(*text);
  }
  return std::nullopt;
}

// How a value that is not a number shows in a warning.
std::string DescribeScalar(const JsonScalar& value) {
  if (const std::string* text = std::get_if<std::string>(&value)) {
    if (text->size() <= 40) return absl::StrCat("\"", *text, "\"");
    return absl::StrCat("\"", absl::string_view(text->data(), 40), "...\"");
  }
  if (const bool* flag = std::get_if<bool>(&value)) return *flag ? "true" : "false";
  return "null";
}

// The latest time a google.protobuf.Timestamp holds: 9999-12-31T23:59:59Z.
constexpr double kLatestTimestampSeconds = 253402300799.0;

// `seconds` must be finite and at most kLatestTimestampSeconds.
google::protobuf::Timestamp TimestampFromSeconds(double seconds) {
  google::protobuf::Timestamp timestamp;
  const double whole = std::floor(seconds);
  timestamp.set_seconds(static_cast<int64_t>(whole));
  timestamp.set_nanos(std::min(999'999'999, static_cast<int32_t>((seconds - whole) * 1e9)));
  return timestamp;
}

}  // namespace

HypertuneFileReader::HypertuneFileReader(std::string path, std::shared_ptr<spdlog::logger> logger)
    : path_(std::move(path)), logger_(std::move(logger)) {}

std::vector<v1::Measurement> HypertuneFileReader::Poll() { return Read(/*writer_exited=*/false); }

std::vector<v1::Measurement> HypertuneFileReader::Finish() {
  std::vector<v1::Measurement> measurements = Read(/*writer_exited=*/true);
  // The writer is gone: read the rest of a large file window by window.
  while (read_cut_short_) {
    const size_t consumed_before = consumed_bytes_;
    std::vector<v1::Measurement> more = Read(/*writer_exited=*/true);
    measurements.insert(measurements.end(), std::make_move_iterator(more.begin()),
                        std::make_move_iterator(more.end()));
    if (consumed_bytes_ == consumed_before) break;  // no progress: stop, never spin
  }
  return measurements;
}

void HypertuneFileReader::Warn(std::string_view kind, const std::string& message) {
  if (warnings_.Count(kind)) {
    logger_->warn("hypertune metrics file {} {}{}", path_, message, warnings_.Suffix(kind));
  }
}

bool HypertuneFileReader::ReadFrom(int fd, size_t offset, bool& reached_end) {
  content_.clear();
  reached_end = false;
  char buffer[64 * 1024];
  off_t position = static_cast<off_t>(offset);
  while (content_.size() < kMaxReadBytes) {
    const size_t want = std::min(sizeof(buffer), kMaxReadBytes - content_.size());
    const ssize_t got = pread(fd, buffer, want, position);
    if (got > 0) {
      content_.append(buffer, static_cast<size_t>(got));
      position += got;
    } else if (got == 0) {
      reached_end = true;
      return true;
    } else if (errno != EINTR && errno != EAGAIN) {
      ReportError(fmt::format("{}: cannot read: {}", path_, strerror(errno)));
      return false;
    }
  }
  return true;
}

int HypertuneFileReader::Open(struct stat& info) {
  // O_NONBLOCK: opening a FIFO without a writer does not wait for one.
  // O_NOFOLLOW: the file itself must not be a symbolic link.
  const int fd = open(path_.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY);
  if (fd < 0) {
    if (errno == ELOOP) {
      ReportError(
          fmt::format("{} is a symbolic link; not followed (the trainer must write the "
                      "file itself)",
                      path_));
    } else if (errno != ENOENT) {
      ReportError(fmt::format("{}: cannot open: {}", path_, strerror(errno)));
    }
    return -1;
  }
  if (fstat(fd, &info) != 0) {
    ReportError(fmt::format("{}: cannot stat: {}", path_, strerror(errno)));
    close(fd);
    return -1;
  }
  if (!S_ISREG(info.st_mode)) {
    const char* kind = S_ISFIFO(info.st_mode)   ? "a FIFO"
                       : S_ISCHR(info.st_mode)  ? "a character device"
                       : S_ISBLK(info.st_mode)  ? "a block device"
                       : S_ISSOCK(info.st_mode) ? "a socket"
                       : S_ISDIR(info.st_mode)  ? "a directory"
                                                : "not a regular file";
    ReportError(fmt::format("{} is {}; only a regular file is read", path_, kind));
    close(fd);
    return -1;
  }
  return fd;
}

void HypertuneFileReader::ReportError(std::string message) {
  // A persistent problem is logged once, not on every poll.
  if (message != last_error_) logger_->warn("hypertune metrics file {}", message);
  last_error_ = std::move(message);
}

std::vector<v1::Measurement> HypertuneFileReader::Read(bool writer_exited) {
  struct stat info {};
  const int fd = Open(info);
  if (fd < 0) {
    read_cut_short_ = false;
    return {};
  }
  // Stamped before reading: a write racing the read changes the stamp, and
  // the next poll reads the file again.
  const FileStamp stamp{
      static_cast<uint64_t>(info.st_dev), static_cast<uint64_t>(info.st_ino),
      static_cast<int64_t>(info.st_size),
      static_cast<int64_t>(info.st_mtim.tv_sec) * 1'000'000'000 + info.st_mtim.tv_nsec};
  if (!writer_exited && last_stamp_ == stamp && !read_cut_short_) {
    close(fd);
    return {};
  }
  const bool same_file = last_stamp_.has_value() && last_stamp_->device == stamp.device &&
                         last_stamp_->inode == stamp.inode;
  std::vector<std::string_view> lines;
  bool read = false;
  bool reached_end = false;
  if (same_file && consumed_bytes_ > 0 && static_cast<size_t>(stamp.size) >= consumed_bytes_) {
    // Most likely appended to: read the new bytes and the tail they follow.
    const size_t base = consumed_bytes_ - consumed_tail_.size();
    if (!ReadFrom(fd, base, reached_end)) {
      close(fd);
      return {};
    }
    if (ExtendsConsumed(content_, base)) {
      // A window that stops short of the end does not end a record, even
      // when the writer has exited.
      lines = AppendedLines(content_, base, writer_exited && reached_end);
      read = true;
    }
  }
  if (!read) {
    if (!ReadFrom(fd, 0, reached_end)) {
      close(fd);
      return {};
    }
    const bool exited = writer_exited && reached_end;
    lines = ExtendsConsumed(content_, 0) ? AppendedLines(content_, 0, exited)
                                         : RewrittenLines(content_, exited);
  }
  close(fd);
  last_stamp_ = stamp;
  read_cut_short_ = !reached_end;
  last_error_.clear();

  std::vector<v1::Measurement> measurements;
  for (std::string_view line : lines) {
    if (line.size() > kMaxRecordBytes) {
      ++record_count_;
      Warn("oversized", fmt::format("record {} is {} bytes, over the limit of {}; skipped",
                                    record_count_, line.size(), kMaxRecordBytes));
      continue;
    }
    emitted_lines_.emplace_back(line);
    remembered_bytes_ += line.size();
    while (emitted_lines_.size() > kRememberedRecords ||
           (emitted_lines_.size() > 1 && remembered_bytes_ > kRememberedBytes)) {
      remembered_bytes_ -= emitted_lines_.front().size();
      emitted_lines_.pop_front();
    }
    std::optional<v1::Measurement> measurement = ToMeasurement(line);
    if (measurement.has_value()) measurements.push_back(*std::move(measurement));
  }
  return measurements;
}

bool HypertuneFileReader::ExtendsConsumed(std::string_view content, size_t base) const {
  const size_t tail_start = consumed_bytes_ - consumed_tail_.size();
  if (tail_start < base || base + content.size() < consumed_bytes_) return false;
  return content.substr(tail_start - base, consumed_tail_.size()) == consumed_tail_;
}

void HypertuneFileReader::MarkConsumed(std::string_view content, size_t base,
                                       size_t consumed_bytes) {
  consumed_bytes_ = consumed_bytes;
  const size_t tail = std::min(kTailCheckBytes, consumed_bytes);
  consumed_tail_ = std::string(content.substr(consumed_bytes - tail - base, tail));
}

std::vector<std::string_view> HypertuneFileReader::AppendedLines(std::string_view content,
                                                                 size_t base, bool writer_exited) {
  std::string_view fresh = content.substr(consumed_bytes_ - base);
  size_t consumed = consumed_bytes_;
  if (skipping_oversized_record_) {
    const size_t newline = fresh.find_first_of(kSeparators);
    if (newline == std::string_view::npos) {
      MarkConsumed(content, base, base + content.size());
      return {};
    }
    fresh.remove_prefix(newline + 1);
    consumed += newline + 1;
    skipping_oversized_record_ = false;
  }
  std::string_view complete = fresh;
  if (!writer_exited) {
    const size_t last_newline = fresh.find_last_of(kSeparators);
    complete = last_newline == std::string_view::npos ? std::string_view()
                                                      : fresh.substr(0, last_newline + 1);
  }
  consumed += complete.size();
  if (fresh.size() - complete.size() > kMaxRecordBytes) {
    ++record_count_;
    Warn("oversized", fmt::format("record {} grew past {} bytes without a newline; skipped",
                                  record_count_, kMaxRecordBytes));
    skipping_oversized_record_ = true;
    consumed = base + content.size();
  }
  MarkConsumed(content, base, consumed);
  return SplitRecords(complete);
}

std::vector<std::string_view> HypertuneFileReader::RewrittenLines(std::string_view content,
                                                                  bool writer_exited) {
  std::string_view complete = content;
  if (!writer_exited) {
    const size_t last_newline = complete.find_last_of(kSeparators);
    complete = last_newline == std::string_view::npos ? std::string_view()
                                                      : complete.substr(0, last_newline + 1);
  }
  const std::vector<std::string_view> lines = SplitRecords(complete);
  // Place the file's first line at the earliest position of the emitted
  // history where the lines agree for as long as both run; that keeps the
  // largest overlap, so only lines past the history are new.
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
  skipping_oversized_record_ = false;
  MarkConsumed(content, 0, complete.size());
  return std::vector<std::string_view>(lines.begin() + static_cast<std::ptrdiff_t>(already_emitted),
                                       lines.end());
}

std::optional<v1::Measurement> HypertuneFileReader::ToMeasurement(std::string_view line) {
  ++record_count_;
  absl::StatusOr<std::vector<JsonField>> fields = FlatJsonObjectParser::Parse(line);
  if (!fields.ok()) {
    Warn("bad record",
         fmt::format("record {}: {}; skipped", record_count_, fields.status().ToString()));
    return std::nullopt;
  }
  v1::Measurement measurement;
  std::optional<int64_t> step;
  for (const JsonField& field : *fields) {
    if (field.key == "global_step") {
      if (const double* number = std::get_if<double>(&field.value)) {
        step = metrics::MetricValue::ToStep(*number);
      } else if (const std::string* text = std::get_if<std::string>(&field.value)) {
        step = metrics::MetricValue::ParseStep(*text);
      }
      continue;
    }
    if (field.key == "timestamp") {
      const std::optional<double> seconds = NumericValue(field.value);
      if (seconds.has_value() && std::isfinite(*seconds) && *seconds > 0) {
        if (*seconds < kLatestTimestampSeconds + 1) {
          *measurement.mutable_report_time() = TimestampFromSeconds(*seconds);
        } else {
          Warn("timestamp", fmt::format("record {}: timestamp {} is after the year 9999; the "
                                        "time the record was read is used instead",
                                        record_count_, *seconds));
        }
      }
      continue;
    }
    if (std::find(std::begin(kNonMetricKeys), std::end(kNonMetricKeys), field.key) !=
        std::end(kNonMetricKeys)) {
      continue;
    }
    if (!metrics::MetricValue::IsValidName(field.key)) {
      Warn(absl::StrCat("name:", field.key),
           fmt::format("record {}: key '{}' is not a metric name ([A-Za-z_][A-Za-z0-9_./-]*); "
                       "dropped",
                       record_count_, field.key));
      continue;
    }
    const std::optional<double> value = NumericValue(field.value);
    if (!value.has_value()) {
      Warn(absl::StrCat("number:", field.key),
           fmt::format("record {}: metric '{}' is {}; dropped (not a number)", record_count_,
                       field.key, DescribeScalar(field.value)));
      continue;
    }
    if (!std::isfinite(*value)) {
      Warn(absl::StrCat("finite:", field.key),
           fmt::format("record {}: metric '{}' is {}; dropped (only finite values are stored)",
                       record_count_, field.key, *value));
      continue;
    }
    // A key given twice: the last value counts, as on an output line; the
    // service refuses a measurement holding a metric twice.
    v1::Metric* metric = nullptr;
    for (v1::Metric& existing : *measurement.mutable_metrics()) {
      if (existing.metric_id() == field.key) metric = &existing;
    }
    if (metric == nullptr) {
      metric = measurement.add_metrics();
      metric->set_metric_id(field.key);
    }
    metric->set_value(*value);
  }
  if (measurement.metrics().empty()) return std::nullopt;
  // The library writes global_step 0 when the trainer gave none.
  last_step_ = step.has_value() && *step != 0 ? *step : last_step_ + 1;
  measurement.set_step(last_step_);
  return measurement;
}

}  // namespace vernier::agent
