#ifndef VERNIER_METRICS_METRIC_PATTERN_H_
#define VERNIER_METRICS_METRIC_PATTERN_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace re2 {
class RE2;
}

namespace vernier::metrics {

// One `name=value` pair found in a line of output, before the value is
// checked to be a number. Views into the line.
struct MetricToken {
  std::string_view name;
  std::string_view value;
};

// A job's `metricRegex`: how metrics are found in the trainer's output.
//
// The pattern (RE2 syntax, linear time whatever the input) is searched in
// every line, as many times as it matches; every match gives metrics:
//   - with groups named `name` and `value`, one metric per match, named by
//     what `name` captured:        (?P<name>\w+)\s*:\s*(?P<value>\S+)
//   - else every other named group is a metric named after the group:
//       epoch (?P<epoch>\d+) .* val_acc (?P<accuracy>[-+.\deE]+)
//   - a pattern without named groups reads its first group as the name and
//     its second as the value (Katib's metricsFormat convention).
// A metric called `step`, `global_step` or `epoch` sets the step, as in the
// default `name=value` format. Groups that did not take part in a match are
// skipped.
class MetricPattern {
 public:
  // INVALID_ARGUMENT naming what is wrong: RE2's own error for a pattern that
  // does not compile, or which groups are missing or clash.
  static absl::StatusOr<MetricPattern> Compile(std::string_view pattern);

  MetricPattern(MetricPattern&&) noexcept;
  MetricPattern& operator=(MetricPattern&&) noexcept;
  ~MetricPattern();

  // Every metric the pattern finds in `line`, in order.
  std::vector<MetricToken> Extract(std::string_view line) const;

  const std::string& pattern() const { return pattern_; }

 private:
  // Which capture gives a metric's name (0: fixed, from `fixed_name`).
  struct Capture {
    int name_group = 0;
    std::string fixed_name;
    int value_group = 0;
  };

  MetricPattern(std::string pattern, std::unique_ptr<re2::RE2> regex,
                std::vector<Capture> captures);

  std::string pattern_;
  std::unique_ptr<re2::RE2> regex_;
  std::vector<Capture> captures_;
};

}  // namespace vernier::metrics

#endif  // VERNIER_METRICS_METRIC_PATTERN_H_
