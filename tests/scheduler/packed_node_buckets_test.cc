#include "scheduler/packed_node_buckets.h"

#include "gtest/gtest.h"

namespace vernier::scheduler {
namespace {

TEST(PackedNodeBucketsTest, TheFewestGpusThatFitComeFirst) {
  PackedNodeBuckets nodes({8, 3, 5}, 8);
  EXPECT_EQ(nodes.SmallestAtLeast(2), 1);
  EXPECT_EQ(nodes.SmallestAtLeast(4), 2);
  EXPECT_EQ(nodes.SmallestAtLeast(6), 0);
  EXPECT_EQ(nodes.SmallestAtLeast(9), -1);
  // More gangs never beat a tighter fit.
  nodes.AddGangs(2, 3);
  EXPECT_EQ(nodes.SmallestAtLeast(2), 1);
}

TEST(PackedNodeBucketsTest, AmongEqualCountsTheNodeWithTheMostGangsComesFirst) {
  PackedNodeBuckets nodes({4, 4, 4}, 8);
  nodes.AddGangs(0, 1);
  nodes.AddGangs(1, 3);
  nodes.AddGangs(2, 2);
  EXPECT_EQ(nodes.SmallestAtLeast(1), 1);
  EXPECT_EQ(nodes.gangs(1), 3);
  nodes.AddGangs(1, -2);
  EXPECT_EQ(nodes.SmallestAtLeast(1), 2);
  // The count moves with AddCount, the gangs stay.
  nodes.AddCount(0, -2);
  EXPECT_EQ(nodes.count(0), 2);
  EXPECT_EQ(nodes.gangs(0), 1);
  EXPECT_EQ(nodes.SmallestAtLeast(1), 0);
  EXPECT_EQ(nodes.SmallestAtLeast(3), 2);
}

TEST(PackedNodeBucketsTest, APlanTakesGpusThroughTheKeys) {
  PackedNodeBuckets nodes({4, 6}, 8);
  nodes.AddGangs(1, 2);
  // What GangAllocator::Plan does: take 3 GPUs of node 0 by its key.
  nodes.keys().Add(0, -3 * nodes.scale());
  EXPECT_EQ(nodes.keys().SmallestAtLeast(1 * nodes.scale()), 0);
  EXPECT_EQ(nodes.keys().SmallestAtLeast(2 * nodes.scale()), 1);
  nodes.keys().Add(0, 3 * nodes.scale());
  EXPECT_EQ(nodes.SmallestAtLeast(4), 0);
}

}  // namespace
}  // namespace vernier::scheduler
