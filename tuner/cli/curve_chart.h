#ifndef VERNIER_TUNER_CLI_CURVE_CHART_H_
#define VERNIER_TUNER_CLI_CURVE_CHART_H_

#include <cstdint>
#include <span>
#include <string>

namespace vernier::cli {

struct CurvePoint {
  int64_t step = 0;
  double value = 0;
};

// A learning curve drawn in text for a terminal, `height` rows of at most
// `width` columns (at least 2 each), in step order:
//
//   0.9312 |        ****
//          |    ****
//   0.6100 |****
//          +------------
//           step 1  step 12
//
// With more points than columns, each column shows the last point that
// falls in it. Non-finite values are left out; no finite point gives "".
std::string RenderCurveChart(std::span<const CurvePoint> points, int width, int height);

}  // namespace vernier::cli

#endif  // VERNIER_TUNER_CLI_CURVE_CHART_H_
