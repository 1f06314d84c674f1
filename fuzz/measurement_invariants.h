#ifndef VERNIER_FUZZ_MEASUREMENT_INVARIANTS_H_
#define VERNIER_FUZZ_MEASUREMENT_INVARIANTS_H_

#include <cmath>
#include <cstdlib>
#include <vector>

#include "metrics/metric_value.h"
#include "vernier/v1/study.pb.h"

namespace vernier::fuzz {

// What the agent's metric collectors promise of every measurement they
// return: at least one metric, each with a valid name and a finite value.
// Aborts (a crash for libFuzzer) otherwise.
inline void CheckMeasurements(const std::vector<v1::Measurement>& measurements) {
  for (const v1::Measurement& measurement : measurements) {
    if (measurement.metrics().empty()) std::abort();
    for (const v1::Metric& metric : measurement.metrics()) {
      if (!metrics::MetricValue::IsValidName(metric.metric_id()) ||
          !std::isfinite(metric.value())) {
        std::abort();
      }
    }
  }
}

}  // namespace vernier::fuzz

#endif  // VERNIER_FUZZ_MEASUREMENT_INVARIANTS_H_
