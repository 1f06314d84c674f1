#include "http/downsample.h"

#include <algorithm>

namespace vernier::http {

std::vector<size_t> DownsampleIndexes(size_t count, size_t max_points) {
  max_points = std::max<size_t>(max_points, 2);
  std::vector<size_t> indexes;
  if (count <= max_points) {
    for (size_t i = 0; i < count; ++i) indexes.push_back(i);
    return indexes;
  }
  // Evenly spread over [0, count - 1], both ends included.
  for (size_t i = 0; i < max_points; ++i) {
    indexes.push_back(i * (count - 1) / (max_points - 1));
  }
  return indexes;
}

}  // namespace vernier::http
