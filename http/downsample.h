#ifndef VERNIER_HTTP_DOWNSAMPLE_H_
#define VERNIER_HTTP_DOWNSAMPLE_H_

#include <cstddef>
#include <vector>

namespace vernier::http {

// The indexes of at most `max_points` of `count` points, evenly spread,
// the first and the last always among them (all of them when count <=
// max_points). max_points under 2 counts as 2.
std::vector<size_t> DownsampleIndexes(size_t count, size_t max_points);

}  // namespace vernier::http

#endif  // VERNIER_HTTP_DOWNSAMPLE_H_
