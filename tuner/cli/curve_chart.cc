#include "tuner/cli/curve_chart.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace vernier::cli {

std::string RenderCurveChart(std::span<const CurvePoint> points, int width, int height) {
  std::vector<CurvePoint> finite;
  for (const CurvePoint& point : points) {
    if (std::isfinite(point.value)) finite.push_back(point);
  }
  if (finite.empty()) return "";
  std::stable_sort(finite.begin(), finite.end(),
                   [](const CurvePoint& a, const CurvePoint& b) { return a.step < b.step; });
  width = std::max(width, 2);
  height = std::max(height, 2);
  const int columns = std::min<int>(width, static_cast<int>(finite.size()));
  // Column c shows the last point of its share of the curve.
  std::vector<double> shown(columns);
  for (size_t i = 0; i < finite.size(); ++i) {
    shown[static_cast<int>(i * columns / finite.size())] = finite[i].value;
  }
  const auto [low, high] = std::minmax_element(shown.begin(), shown.end());
  const double min = *low;
  const double max = *high;
  const auto row_of = [&](double value) {
    if (max == min) return height / 2;
    return static_cast<int>(std::lround((value - min) / (max - min) * (height - 1)));
  };
  const std::string top_label = absl::StrFormat("%.6g", max);
  const std::string bottom_label = absl::StrFormat("%.6g", min);
  const size_t label_width = std::max(top_label.size(), bottom_label.size());
  std::string chart;
  for (int row = height - 1; row >= 0; --row) {
    std::string label;
    if (row == height - 1) label = top_label;
    if (row == 0) label = bottom_label;
    std::string line(label_width - label.size(), ' ');
    absl::StrAppend(&line, label, " |");
    for (int column = 0; column < columns; ++column) {
      line.push_back(row_of(shown[column]) == row ? '*' : ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    absl::StrAppend(&chart, line, "\n");
  }
  absl::StrAppend(&chart, std::string(label_width + 1, ' '), "+", std::string(columns, '-'), "\n");
  const std::string first = absl::StrCat("step ", finite.front().step);
  const std::string last = absl::StrCat("step ", finite.back().step);
  std::string axis = std::string(label_width + 2, ' ') + first;
  const size_t end = label_width + 2 + static_cast<size_t>(columns);
  if (finite.size() > 1) {
    axis += std::string(end > axis.size() + last.size() + 2 ? end - axis.size() - last.size() : 2,
                        ' ');
    axis += last;
  }
  absl::StrAppend(&chart, axis, "\n");
  return chart;
}

}  // namespace vernier::cli
