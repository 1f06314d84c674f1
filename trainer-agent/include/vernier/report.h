// vernier/report.h: report metrics to Vernier from C++ training code.
//
// Header-only, no dependencies beyond POSIX. Under a Vernier trial the agent
// sets CLOUD_ML_HP_METRIC_FILE; each report appends one JSON line to it in
// the cloudml-hypertune format, which the agent reads and streams to the
// service (with its step and time):
//
//   #include <vernier/report.h>
//   vernier::report(epoch, {{"accuracy", acc}, {"loss", loss}});
//
// Outside Vernier (no CLOUD_ML_HP_METRIC_FILE) a report does nothing and
// succeeds, so the same binary runs anywhere. Compile with
// -I<vernier>/trainer-agent/include.
#ifndef VERNIER_REPORT_H_
#define VERNIER_REPORT_H_

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace vernier {

struct MetricValue {
  std::string_view name;
  double value;
};

// Appends metric records to one file; thread-safe.
class MetricReporter {
 public:
  // The file named by CLOUD_ML_HP_METRIC_FILE, the trial by CLOUD_ML_TRIAL_ID.
  MetricReporter() : MetricReporter(Env("CLOUD_ML_HP_METRIC_FILE"), Env("CLOUD_ML_TRIAL_ID")) {}
  MetricReporter(std::string path, std::string trial_id)
      : path_(std::move(path)), trial_id_(std::move(trial_id)) {}

  // False when there is no file to write (not running under Vernier).
  bool enabled() const { return !path_.empty(); }
  const std::string& path() const { return path_; }

  // One record with these metrics at `step` (0: the agent counts on from the
  // previous record). Metric names match [A-Za-z_][A-Za-z0-9_./-]*; values
  // that are NaN or infinite are written as Python would, and the agent
  // drops them with a warning. Returns false, with error() saying why, when
  // a name is invalid or the record cannot be written.
  bool Report(int64_t step, std::initializer_list<MetricValue> metrics) {
    return Report(step, std::vector<MetricValue>(metrics));
  }
  bool Report(int64_t step, const std::vector<MetricValue>& metrics) {
    std::lock_guard<std::mutex> lock(mutex_);
    error_.clear();
    if (!enabled()) return true;
    if (metrics.empty()) return Fail("no metrics given");
    std::string line = "{\"global_step\": \"" + std::to_string(step) + "\"";
    for (const MetricValue& metric : metrics) {
      if (!IsValidName(metric.name)) {
        return Fail("metric name '" + std::string(metric.name) +
                    "' is invalid: names match [A-Za-z_][A-Za-z0-9_./-]*");
      }
      if (metric.name == "global_step" || metric.name == "timestamp" || metric.name == "trial" ||
          metric.name == "checkpoint_path") {
        return Fail("'" + std::string(metric.name) + "' is reserved in the record, not a metric");
      }
      line += ", \"" + std::string(metric.name) + "\": " + Number(metric.value);
    }
    const double now =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    char timestamp[64];
    std::snprintf(timestamp, sizeof(timestamp), "%.6f", now);
    line += std::string(", \"timestamp\": ") + timestamp;
    if (!trial_id_.empty()) line += ", \"trial\": \"" + trial_id_ + "\"";
    line += "}\n";
    return Append(line);
  }

  // Why the last Report failed; empty after a success.
  std::string error() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return error_;
  }

 private:
  static std::string Env(const char* name) {
    const char* value = std::getenv(name);
    return value != nullptr ? value : "";
  }

  static bool IsValidName(std::string_view name) {
    const auto letter = [](char c) {
      return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
    };
    if (name.empty() || !letter(name.front())) return false;
    for (char c : name) {
      if (!letter(c) && !(c >= '0' && c <= '9') && c != '.' && c != '/' && c != '-') return false;
    }
    return true;
  }

  // Shortest form that reads back exactly; non-finite values as Python's
  // json module writes them.
  static std::string Number(double value) {
    if (std::isnan(value)) return "NaN";
    if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
    char text[32];
    for (int precision = 1; precision <= 17; ++precision) {
      std::snprintf(text, sizeof(text), "%.*g", precision, value);
      if (std::strtod(text, nullptr) == value) break;
    }
    return text;
  }

  bool Fail(std::string message) {
    error_ = std::move(message);
    return false;
  }

  // One write of the whole line to a file opened for appending, so that
  // records of several threads or processes never interleave.
  bool Append(const std::string& line) {
    const int fd = open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) return Fail("cannot open " + path_ + ": " + std::strerror(errno));
    ssize_t written;
    do {
      written = write(fd, line.data(), line.size());
    } while (written < 0 && errno == EINTR);
    const int write_errno = errno;
    close(fd);
    if (written != static_cast<ssize_t>(line.size())) {
      return Fail("cannot write to " + path_ + ": " +
                  (written < 0 ? std::strerror(write_errno) : "short write"));
    }
    return true;
  }

  std::string path_;
  std::string trial_id_;
  mutable std::mutex mutex_;
  std::string error_;
};

// The process-wide reporter (from the environment at first use).
inline MetricReporter& DefaultMetricReporter() {
  static MetricReporter reporter;
  return reporter;
}

// vernier::report(step, {{"accuracy", 0.91}, {"loss", 0.2}})
inline bool report(int64_t step, std::initializer_list<MetricValue> metrics) {
  return DefaultMetricReporter().Report(step, metrics);
}

}  // namespace vernier

#endif  // VERNIER_REPORT_H_
