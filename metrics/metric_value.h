#ifndef VERNIER_METRICS_METRIC_VALUE_H_
#define VERNIER_METRICS_METRIC_VALUE_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace vernier::metrics {

// Text-to-number rules shared by the metric collectors, so stdout lines and
// hypertune records accept exactly the same spellings.
class MetricValue {
 public:
  // The whole text must be a number for strtod ("0.5", "-1e-3", "nan", "inf");
  // surrounding text ("0.5%", "abc", "") gives nullopt.
  static std::optional<double> ParseNumber(std::string_view text);
  // A number with no fractional part that fits in int64 ("12", "12.0").
  static std::optional<int64_t> ParseStep(std::string_view text);
  static std::optional<int64_t> ToStep(double value);
  // [A-Za-z_][A-Za-z0-9_./-]*
  static bool IsValidName(std::string_view name);
};

}  // namespace vernier::metrics

#endif  // VERNIER_METRICS_METRIC_VALUE_H_
