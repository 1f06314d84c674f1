#include "suggest/heap_retention.h"

#include <malloc.h>

#include <cstdlib>
#include <cstring>

#include "gtest/gtest.h"

namespace vernier::suggest {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

TEST(HeapRetentionTest, AFreedBlockOfAFewMegabytesStaysInTheHeap) {
  if (kSanitized) GTEST_SKIP() << "the sanitizer's allocator is not glibc's";
  ASSERT_TRUE(RetainFreedHeap());
  constexpr size_t kBytes = 4 << 20;  // A 200 x 2,600 matrix of doubles.
  const struct mallinfo2 before = mallinfo2();
  void* block = std::malloc(kBytes);
  ASSERT_NE(block, nullptr);
  std::memset(block, 1, kBytes);
  const struct mallinfo2 held = mallinfo2();
  // From the heap, not a mapping of its own...
  EXPECT_EQ(held.hblkhd, before.hblkhd);
  std::free(block);
  // ...and still there, free, once freed: the next one faults no pages in.
  const struct mallinfo2 after = mallinfo2();
  EXPECT_GE(after.fordblks, before.fordblks + kBytes);
  EXPECT_GE(after.arena, held.arena);
}

}  // namespace
}  // namespace vernier::suggest
