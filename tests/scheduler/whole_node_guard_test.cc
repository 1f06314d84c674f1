#include "scheduler/whole_node_guard.h"

#include "gtest/gtest.h"

namespace vernier::scheduler {
namespace {

TEST(WholeNodeGuardTest, OnlyReplicasAsLargeAsTheLargestNodeNeedAWholeNode) {
  WholeNodeGuard guard(8);
  EXPECT_TRUE(guard.NeedsWholeNode(8));
  EXPECT_FALSE(guard.NeedsWholeNode(7));
  EXPECT_FALSE(guard.NeedsWholeNode(0));
  // A cluster without GPUs has no whole nodes to keep.
  EXPECT_FALSE(WholeNodeGuard(0).NeedsWholeNode(0));
}

TEST(WholeNodeGuardTest, SmallGangsMayTakeAWholeNodeWhileNoGangNeedsOne) {
  WholeNodeGuard guard(8);
  guard.Queued(4);
  guard.Queued(1);
  EXPECT_EQ(guard.waiting_for_whole_nodes(), 0);
  EXPECT_TRUE(guard.MayTake(4, 8, 8));
  EXPECT_TRUE(guard.MayTake(1, 8, 8));
}

TEST(WholeNodeGuardTest, KeepsWholeNodesWhileAGangNeedsOne) {
  WholeNodeGuard guard(8);
  guard.Queued(8);
  guard.Queued(8);
  EXPECT_EQ(guard.waiting_for_whole_nodes(), 2);
  // Not a wholly open node of the largest size: anyone may take it.
  EXPECT_FALSE(guard.MayTake(2, 8, 8));
  EXPECT_TRUE(guard.MayTake(2, 7, 8));
  EXPECT_TRUE(guard.MayTake(2, 4, 4));
  // A gang that needs a whole node may take it.
  EXPECT_TRUE(guard.MayTake(8, 8, 8));
  guard.Dequeued(8);
  EXPECT_FALSE(guard.MayTake(2, 8, 8));
  guard.Dequeued(8);
  EXPECT_TRUE(guard.MayTake(2, 8, 8));
  // Leaving gangs that never counted change nothing.
  guard.Dequeued(4);
  guard.Dequeued(8);
  EXPECT_EQ(guard.waiting_for_whole_nodes(), 0);
  guard.Queued(8);
  EXPECT_FALSE(guard.MayTake(1, 8, 8));
}

}  // namespace
}  // namespace vernier::scheduler
