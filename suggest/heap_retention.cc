#include "suggest/heap_retention.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace vernier::suggest {
namespace {

[[maybe_unused]] constexpr int kTrimThresholdBytes = 64 << 20;
[[maybe_unused]] constexpr int kMmapThresholdBytes = 16 << 20;

}  // namespace

bool RetainFreedHeap() {
#if defined(__GLIBC__)
  const bool trim = mallopt(M_TRIM_THRESHOLD, kTrimThresholdBytes) == 1;
  const bool mmap = mallopt(M_MMAP_THRESHOLD, kMmapThresholdBytes) == 1;
  return trim && mmap;
#else
  return false;
#endif
}

}  // namespace vernier::suggest
