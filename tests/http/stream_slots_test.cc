#include "http/stream_slots.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "http/http_status_mapping.h"

namespace vernier::http {
namespace {

using ::testing::HasSubstr;

TEST(StreamSlotsTest, EachCallerHasItsOwnSlotsUpToTheLimit) {
  StreamSlots slots(2);
  std::vector<std::shared_ptr<void>> held;
  for (int i = 0; i < 2; ++i) {
    absl::StatusOr<std::shared_ptr<void>> slot = slots.Take("Bearer a");
    ASSERT_TRUE(slot.ok()) << slot.status();
    held.push_back(*slot);
  }
  const absl::StatusOr<std::shared_ptr<void>> third = slots.Take("Bearer a");
  ASSERT_FALSE(third.ok());
  EXPECT_EQ(HttpStatusOf(third.status()), 429);
  EXPECT_THAT(third.status().message(),
              HasSubstr("this caller already has 2 event streams open, the limit per caller"));
  // Another caller is not counted with the first.
  EXPECT_TRUE(slots.Take("Bearer b").ok());
  EXPECT_EQ(slots.Held("Bearer a"), 2);
}

TEST(StreamSlotsTest, ASlotComesBackWhenItsLastCopyGoes) {
  StreamSlots slots(1);
  {
    absl::StatusOr<std::shared_ptr<void>> slot = slots.Take("Bearer a");
    ASSERT_TRUE(slot.ok());
    std::shared_ptr<void> copy = *slot;
    EXPECT_FALSE(slots.Take("Bearer a").ok());
  }
  EXPECT_EQ(slots.Held("Bearer a"), 0);
  EXPECT_TRUE(slots.Take("Bearer a").ok());
}

}  // namespace
}  // namespace vernier::http
