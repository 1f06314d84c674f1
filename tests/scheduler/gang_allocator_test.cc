#include "scheduler/gang_allocator.h"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <iostream>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/test_seed.h"

namespace vernier::scheduler {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

GangRequest Gang(std::string id, std::vector<int> gpus_per_replica) {
  return GangRequest{std::move(id), std::move(gpus_per_replica)};
}

// `policy` alone, without behind_first, keep_whole_nodes or
// pack_busy_nodes (the default before issue 37 part 3's third round, with
// kHeadReservation).
GangAllocatorOptions Only(BackfillPolicy policy, int patience_per_gpu = 40) {
  GangAllocatorOptions options;
  options.policy = policy;
  options.patience_per_gpu = patience_per_gpu;
  options.behind_first = false;
  options.behind_exponent = 1.0;
  options.keep_whole_nodes = false;
  options.pack_busy_nodes = false;
  return options;
}

std::vector<std::string> Ids(const std::vector<GangPlacement>& placements) {
  std::vector<std::string> ids;
  for (const GangPlacement& placement : placements) ids.push_back(placement.id);
  return ids;
}

TEST(GangAllocatorTest, CountsTheGpusOfEveryNode) {
  GangAllocator allocator({8, 4, 0});
  EXPECT_EQ(allocator.total_gpus(), 12);
  EXPECT_EQ(allocator.free_gpus(), 12);
  EXPECT_EQ(allocator.queued_gangs(), 0);
  EXPECT_THAT(allocator.Schedule(), IsEmpty());
}

TEST(GangAllocatorTest, PlacesEveryReplicaOfAGangAtOnce) {
  GangAllocator allocator({4, 4});
  ASSERT_TRUE(allocator.Enqueue(Gang("t1", {4, 2, 1})).ok());
  EXPECT_EQ(allocator.queued_gangs(), 1);
  std::vector<GangPlacement> placed = allocator.Schedule();
  ASSERT_THAT(placed, SizeIs(1));
  EXPECT_EQ(placed[0].id, "t1");
  ASSERT_THAT(placed[0].replicas, SizeIs(3));
  EXPECT_THAT(placed[0].replicas[0].gpus, SizeIs(4));
  EXPECT_THAT(placed[0].replicas[1].gpus, SizeIs(2));
  EXPECT_THAT(placed[0].replicas[2].gpus, SizeIs(1));
  // The 4-GPU replica fills one node; the others share the second.
  EXPECT_NE(placed[0].replicas[0].node, placed[0].replicas[1].node);
  EXPECT_EQ(placed[0].replicas[1].node, placed[0].replicas[2].node);
  EXPECT_EQ(allocator.free_gpus(), 1);
  EXPECT_EQ(allocator.queued_gangs(), 0);
}

TEST(GangAllocatorTest, PlacesNothingOfAGangThatDoesNotFitWhole) {
  GangAllocator allocator({4});
  ASSERT_TRUE(allocator.Enqueue(Gang("big", {3})).ok());
  ASSERT_THAT(allocator.Schedule(), SizeIs(1));
  ASSERT_TRUE(allocator.Enqueue(Gang("pair", {1, 1})).ok());
  EXPECT_THAT(allocator.Schedule(), IsEmpty());
  EXPECT_EQ(allocator.free_gpus(), 1);
  EXPECT_EQ(allocator.queued_gangs(), 1);
  allocator.Release("big");
  EXPECT_THAT(Ids(allocator.Schedule()), ElementsAre("pair"));
  EXPECT_EQ(allocator.free_gpus(), 2);
}

TEST(GangAllocatorTest, BestFitKeepsTheLargeHoleWhole) {
  GangAllocator allocator({8, 8});
  ASSERT_TRUE(allocator.Enqueue(Gang("six", {6})).ok());
  ASSERT_TRUE(allocator.Enqueue(Gang("two", {2})).ok());
  ASSERT_TRUE(allocator.Enqueue(Gang("eight", {8})).ok());
  std::vector<GangPlacement> placed = allocator.Schedule();
  ASSERT_THAT(Ids(placed), ElementsAre("six", "two", "eight"));
  EXPECT_EQ(placed[0].replicas[0].node, placed[1].replicas[0].node);
  EXPECT_NE(placed[0].replicas[0].node, placed[2].replicas[0].node);
  EXPECT_EQ(allocator.free_gpus(), 0);
}

TEST(GangAllocatorTest, ReleaseFreesExactlyTheGangsGpus) {
  GangAllocator allocator({4});
  ASSERT_TRUE(allocator.Enqueue(Gang("a", {2})).ok());
  ASSERT_TRUE(allocator.Enqueue(Gang("b", {2})).ok());
  std::vector<GangPlacement> placed = allocator.Schedule();
  ASSERT_THAT(placed, SizeIs(2));
  allocator.Release("a");
  EXPECT_EQ(allocator.free_gpus(), 2);
  ASSERT_TRUE(allocator.Enqueue(Gang("c", {2})).ok());
  std::vector<GangPlacement> again = allocator.Schedule();
  ASSERT_THAT(again, SizeIs(1));
  // c gets a's GPUs back, never b's.
  EXPECT_EQ(again[0].replicas[0].gpus, placed[0].replicas[0].gpus);
  allocator.Release("a");  // Twice: ignored.
  EXPECT_EQ(allocator.free_gpus(), 0);
}

TEST(GangAllocatorTest, ReleaseIgnoresUnknownIdsAndDropsQueuedGangs) {
  GangAllocator allocator({2});
  allocator.Release("nobody");
  ASSERT_TRUE(allocator.Enqueue(Gang("a", {2})).ok());
  ASSERT_TRUE(allocator.Enqueue(Gang("b", {2})).ok());
  ASSERT_THAT(allocator.Schedule(), SizeIs(1));
  allocator.Release("b");
  EXPECT_EQ(allocator.queued_gangs(), 0);
  allocator.Release("a");
  EXPECT_THAT(allocator.Schedule(), IsEmpty());
  EXPECT_EQ(allocator.free_gpus(), 2);
  // A released id may be used again.
  EXPECT_TRUE(allocator.Enqueue(Gang("b", {1})).ok());
}

// One node of 4 GPUs: "running" holds 3, "large" (4) waits at the head,
// "small" (1) behind it. Plain head reservation: under the default's
// behind_first, "small", queued as the head became the head, counts as
// just as far behind and takes the free GPU first (see
// BehindFirstGivesAFreedNodeToTheGangFurtherBehind).
class WaitingHeadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(allocator_.Enqueue(Gang("running", {3})).ok());
    ASSERT_THAT(allocator_.Schedule(), SizeIs(1));
    ASSERT_TRUE(allocator_.Enqueue(Gang("large", {4})).ok());
    ASSERT_TRUE(allocator_.Enqueue(Gang("small", {1})).ok());
  }

  GangAllocator allocator_{{4}, Only(BackfillPolicy::kHeadReservation)};
};

TEST_F(WaitingHeadTest, SmallGangsDoNotOvertakeIt) {
  // The free GPU is reserved for the large gang.
  EXPECT_THAT(allocator_.Schedule(), IsEmpty());
  EXPECT_EQ(allocator_.free_gpus(), 1);
  allocator_.Release("running");
  EXPECT_THAT(Ids(allocator_.Schedule()), ElementsAre("large"));
  allocator_.Release("large");
  EXPECT_THAT(Ids(allocator_.Schedule()), ElementsAre("small"));
}

TEST_F(WaitingHeadTest, ReleasingItLetsTheNextOneGo) {
  EXPECT_THAT(allocator_.Schedule(), IsEmpty());
  allocator_.Release("large");
  EXPECT_THAT(Ids(allocator_.Schedule()), ElementsAre("small"));
}

TEST(GangAllocatorTest, BackfillsOntoGpusTheHeadDoesNotNeed) {
  GangAllocator allocator({4, 4, 2}, Only(BackfillPolicy::kHeadReservation));
  ASSERT_TRUE(allocator.Enqueue(Gang("full", {4})).ok());
  ASSERT_TRUE(allocator.Enqueue(Gang("three", {3})).ok());
  ASSERT_THAT(allocator.Schedule(), SizeIs(2));
  ASSERT_TRUE(allocator.Enqueue(Gang("head", {4})).ok());
  ASSERT_TRUE(allocator.Enqueue(Gang("a", {1})).ok());
  ASSERT_TRUE(allocator.Enqueue(Gang("b", {1})).ok());
  ASSERT_TRUE(allocator.Enqueue(Gang("c", {1})).ok());
  // "head" reserves the node where one GPU is free (it waits for a single
  // gang); a and b fit on the third node, c may not take the reserved GPU.
  std::vector<GangPlacement> placed = allocator.Schedule();
  ASSERT_THAT(Ids(placed), ElementsAre("a", "b"));
  EXPECT_EQ(placed[0].replicas[0].node, 2);
  EXPECT_EQ(placed[1].replicas[0].node, 2);
  EXPECT_EQ(allocator.free_gpus(), 1);
  allocator.Release("three");
  EXPECT_THAT(Ids(allocator.Schedule()), ElementsAre("head"));
  allocator.Release("a");
  EXPECT_THAT(Ids(allocator.Schedule()), ElementsAre("c"));
}

TEST(GangAllocatorTest, TheReservationMovesOntoGpusThatFreeUp) {
  // Whichever running gang ends first, the head moves a replica's
  // reservation onto its node instead of letting "later" take it, and so
  // starts after any two ends: at once under kHeadReservation, and under
  // kBoundedBackfill once backfill has placed patience_per_gpu x 8 GPUs
  // past it (none here).
  for (const GangAllocatorOptions options :
       {Only(BackfillPolicy::kHeadReservation),
        Only(BackfillPolicy::kBoundedBackfill, /*patience_per_gpu=*/0)}) {
    for (const std::string first : {"x", "y", "z"}) {
      SCOPED_TRACE(first);
      GangAllocator allocator({4, 4, 4}, options);
      for (const std::string id : {"x", "y", "z"})
        ASSERT_TRUE(allocator.Enqueue(Gang(id, {3})).ok());
      ASSERT_THAT(allocator.Schedule(), SizeIs(3));
      ASSERT_TRUE(allocator.Enqueue(Gang("head", {4, 4})).ok());
      ASSERT_TRUE(allocator.Enqueue(Gang("later", {4})).ok());
      EXPECT_THAT(allocator.Schedule(), IsEmpty());
      allocator.Release(first);
      EXPECT_THAT(allocator.Schedule(), IsEmpty());
      allocator.Release(first == "z" ? "x" : "z");
      EXPECT_THAT(Ids(allocator.Schedule()), ElementsAre("head"));
    }
  }
}

// Nodes of 4 GPUs, each with one running gang of 3: the head (two replicas
// of 4) reserves two nodes, "mid" (4, a whole node) waits behind it. When the
// gang on the third node ends, a young head under kBoundedBackfill leaves
// that whole node to "mid", which starts at once; under kHeadReservation the
// head moves a replica onto it, and "mid" waits until the head has started.
TEST(GangAllocatorTest, AYoungHeadLeavesAWholeFreeNodeToAMidSizeGang) {
  for (const BackfillPolicy policy :
       {BackfillPolicy::kHeadReservation, BackfillPolicy::kBoundedBackfill}) {
    const bool bounded = policy == BackfillPolicy::kBoundedBackfill;
    SCOPED_TRACE(bounded ? "bounded backfill" : "head reservation");
    int mid_started_at_once = 0;
    for (const std::string first : {"x", "y", "z"}) {
      SCOPED_TRACE(first);
      GangAllocator allocator({4, 4, 4}, Only(policy));
      for (const std::string id : {"x", "y", "z"}) {
        ASSERT_TRUE(allocator.Enqueue(Gang(id, {3})).ok());
      }
      ASSERT_THAT(allocator.Schedule(), SizeIs(3));
      ASSERT_TRUE(allocator.Enqueue(Gang("head", {4, 4})).ok());
      ASSERT_TRUE(allocator.Enqueue(Gang("mid", {4})).ok());
      ASSERT_THAT(allocator.Schedule(), IsEmpty());
      allocator.Release(first);
      const std::vector<std::string> placed = Ids(allocator.Schedule());
      if (placed.empty()) continue;  // It ended on a node the head reserves.
      ASSERT_THAT(placed, ElementsAre("mid"));
      ++mid_started_at_once;
      // The head still starts once the two gangs it waits for end.
      for (const std::string other : {"x", "y", "z"}) {
        if (other != first) allocator.Release(other);
      }
      EXPECT_THAT(Ids(allocator.Schedule()), ElementsAre("head"));
    }
    EXPECT_EQ(mid_started_at_once, bounded ? 1 : 0);
  }
}

// behind_first: nodes of 4 GPUs, x, y and z hold 3 each, the head (two
// replicas of 4) waits, and "mid" (4) behind it. When a node the head does
// not reserve frees up whole, it goes to "mid" if mid is as far behind as
// the head (GPUs placed since queued, per GPU asked), else the head's
// reservation moves onto it.
TEST(GangAllocatorTest, BehindFirstGivesAFreedNodeToTheGangFurtherBehind) {
  for (const bool mid_behind : {true, false}) {
    SCOPED_TRACE(mid_behind ? "mid as far behind" : "head further behind");
    int mid_started_at_once = 0;
    for (const std::string first : {"x", "y", "z"}) {
      SCOPED_TRACE(first);
      GangAllocatorOptions options;
      options.behind_first = true;
      GangAllocator allocator({4, 4, 4, 1}, options);
      for (const std::string id : {"x", "y", "z"}) {
        ASSERT_TRUE(allocator.Enqueue(Gang(id, {3})).ok());
      }
      ASSERT_THAT(allocator.Schedule(), SizeIs(3));
      ASSERT_TRUE(allocator.Enqueue(Gang("head", {4, 4})).ok());
      if (!mid_behind) {
        // One GPU placed past the head before mid is queued.
        ASSERT_TRUE(allocator.Enqueue(Gang("one", {1})).ok());
        ASSERT_THAT(Ids(allocator.Schedule()), ElementsAre("one"));
      }
      ASSERT_TRUE(allocator.Enqueue(Gang("mid", {4})).ok());
      ASSERT_THAT(allocator.Schedule(), IsEmpty());
      allocator.Release(first);
      const std::vector<std::string> placed = Ids(allocator.Schedule());
      if (!placed.empty()) {
        ASSERT_THAT(placed, ElementsAre("mid"));
        ++mid_started_at_once;
      }
      // The head still starts once the two gangs it waits for end.
      for (const std::string other : {"x", "y", "z"}) {
        if (other != first) allocator.Release(other);
      }
      EXPECT_THAT(Ids(allocator.Schedule()), ::testing::Contains("head"));
    }
    EXPECT_EQ(mid_started_at_once, mid_behind ? 1 : 0);
  }
}

// behind_exponent: as above, but the head has waited while 3 GPUs were
// placed and "mid" while 1 was. Per GPU (exponent 1) mid is less far
// behind (1/4 < 3/8) and the head's reservation takes the freed node; per
// GPU^2 it is further behind (1/16 >= 3/64) and takes the node first.
TEST(GangAllocatorTest, BehindExponentCountsASmallerGangBehindSooner) {
  for (const double exponent : {1.0, 2.0}) {
    SCOPED_TRACE(exponent);
    int mid_started_at_once = 0;
    for (const std::string first : {"x", "y", "z"}) {
      SCOPED_TRACE(first);
      GangAllocatorOptions options = Only(BackfillPolicy::kHeadReservation);
      options.behind_first = true;
      options.behind_exponent = exponent;
      GangAllocator allocator({4, 4, 4, 1}, options);
      for (const std::string id : {"x", "y", "z"}) {
        ASSERT_TRUE(allocator.Enqueue(Gang(id, {3})).ok());
      }
      ASSERT_THAT(allocator.Schedule(), SizeIs(3));
      ASSERT_TRUE(allocator.Enqueue(Gang("head", {4, 4})).ok());
      for (const std::string id : {"p1", "p2", "mid", "p3"}) {
        ASSERT_TRUE(allocator.Enqueue(Gang(id, {id == "mid" ? 4 : 1})).ok());
        if (id == "mid") continue;
        ASSERT_THAT(Ids(allocator.Schedule()), ElementsAre(id));
        allocator.Release(id);
      }
      allocator.Release(first);
      const std::vector<std::string> placed = Ids(allocator.Schedule());
      if (!placed.empty()) {
        ASSERT_THAT(placed, ElementsAre("mid"));
        ++mid_started_at_once;
      }
      for (const std::string other : {"x", "y", "z"}) {
        if (other != first) allocator.Release(other);
      }
      EXPECT_THAT(Ids(allocator.Schedule()), ::testing::Contains("head"));
    }
    EXPECT_EQ(mid_started_at_once, exponent > 1 ? 1 : 0);
  }
}

// keep_whole_nodes: nodes of 4 GPUs, x, y and z hold 3 each, the head (two
// replicas of 4) waits without moving its reservation (bounded backfill,
// patience not run out), then "small" (2) and "whole" (4, a whole node).
// When the node the head does not reserve frees up whole, "small", the
// older, takes half of it unless the node is kept for "whole". Kept off
// it, "small" still starts once the other nodes free up.
TEST(GangAllocatorTest, KeepWholeNodesLeavesAFreedNodeToTheGangThatNeedsIt) {
  for (const bool keep : {false, true}) {
    SCOPED_TRACE(keep ? "kept" : "not kept");
    int freed_whole = 0;
    for (const std::string first : {"x", "y", "z"}) {
      SCOPED_TRACE(first);
      GangAllocatorOptions options = Only(BackfillPolicy::kBoundedBackfill, 1000);
      options.keep_whole_nodes = keep;
      GangAllocator allocator({4, 4, 4}, options);
      for (const std::string id : {"x", "y", "z"}) {
        ASSERT_TRUE(allocator.Enqueue(Gang(id, {3})).ok());
      }
      ASSERT_THAT(allocator.Schedule(), SizeIs(3));
      ASSERT_TRUE(allocator.Enqueue(Gang("head", {4, 4})).ok());
      ASSERT_TRUE(allocator.Enqueue(Gang("small", {2})).ok());
      ASSERT_TRUE(allocator.Enqueue(Gang("whole", {4})).ok());
      ASSERT_THAT(allocator.Schedule(), IsEmpty());
      allocator.Release(first);
      const std::vector<std::string> placed = Ids(allocator.Schedule());
      if (placed.empty()) continue;  // It ended on a node the head reserves.
      ++freed_whole;
      EXPECT_THAT(placed, ElementsAre(keep ? "whole" : "small"));
      for (const std::string other : {"x", "y", "z"}) {
        if (other != first) allocator.Release(other);
      }
      EXPECT_THAT(Ids(allocator.Schedule()), ::testing::Contains("head"));
      allocator.Release("head");
      allocator.Release("whole");
      const std::vector<std::string> last = Ids(allocator.Schedule());
      if (keep) {
        EXPECT_THAT(last, ElementsAre("small"));
      }
    }
    EXPECT_EQ(freed_whole, 1);
  }
}

// Two nodes with 4 GPUs open each: one runs a single gang, the other two.
// pack_busy_nodes puts a 2-GPU gang with the two (so the single gang's node
// frees up whole when that gang ends); plain best fit takes the node it
// touched last, the single gang's.
TEST(GangAllocatorTest, PackBusyNodesPutsASmallGangWithTheMostGangs) {
  for (const bool pack : {false, true}) {
    SCOPED_TRACE(pack ? "packed" : "not packed");
    GangAllocatorOptions options;
    options.pack_busy_nodes = pack;
    GangAllocator allocator({8, 8}, options);
    std::map<std::string, int> node_of;
    auto schedule = [&] {
      for (const GangPlacement& placement : allocator.Schedule()) {
        node_of[placement.id] = placement.replicas[0].node;
      }
    };
    ASSERT_TRUE(allocator.Enqueue(Gang("alone", {4})).ok());
    ASSERT_TRUE(allocator.Enqueue(Gang("filler", {4})).ok());
    schedule();
    ASSERT_EQ(node_of.at("alone"), node_of.at("filler"));
    ASSERT_TRUE(allocator.Enqueue(Gang("b", {2})).ok());
    ASSERT_TRUE(allocator.Enqueue(Gang("c", {2})).ok());
    schedule();
    ASSERT_EQ(node_of.at("b"), node_of.at("c"));
    ASSERT_NE(node_of.at("b"), node_of.at("alone"));
    allocator.Release("filler");
    ASSERT_TRUE(allocator.Enqueue(Gang("small", {2})).ok());
    schedule();
    ASSERT_TRUE(node_of.contains("small"));
    EXPECT_EQ(node_of.at("small"), pack ? node_of.at("b") : node_of.at("alone"));
  }
}

// The same, for a gang backfilled past a waiting head: it only takes open
// GPUs, and among the nodes with as few as fit it, the one with more gangs.
TEST(GangAllocatorTest, PackBusyNodesAppliesToBackfill) {
  for (const bool pack : {false, true}) {
    SCOPED_TRACE(pack ? "packed" : "not packed");
    GangAllocatorOptions options;
    options.pack_busy_nodes = pack;
    GangAllocator allocator({8, 8, 8}, options);
    std::map<std::string, int> node_of;
    auto schedule = [&] {
      std::vector<std::string> placed;
      for (const GangPlacement& placement : allocator.Schedule()) {
        node_of[placement.id] = placement.replicas[0].node;
        placed.push_back(placement.id);
      }
      return placed;
    };
    const std::map<std::string, int> sizes = {{"alone", 4}, {"filler", 4}, {"b", 2},
                                              {"c", 2},     {"d", 2},      {"e", 2}};
    for (const std::string id : {"alone", "filler", "b", "c", "d", "e", "x"}) {
      ASSERT_TRUE(allocator.Enqueue(Gang(id, {id == "x" ? 1 : sizes.at(id)})).ok());
    }
    ASSERT_THAT(schedule(), SizeIs(7));
    ASSERT_EQ(node_of.at("alone"), node_of.at("filler"));
    ASSERT_EQ(node_of.at("b"), node_of.at("e"));
    ASSERT_NE(node_of.at("b"), node_of.at("alone"));
    ASSERT_NE(node_of.at("x"), node_of.at("alone"));
    ASSERT_NE(node_of.at("x"), node_of.at("b"));
    // No node is wholly free: the head reserves x's node, the one with the
    // most open GPUs. d and e end, so b's node has 4 open GPUs and two
    // gangs; then filler, so alone's node has 4 and one gang.
    ASSERT_TRUE(allocator.Enqueue(Gang("head", {8})).ok());
    ASSERT_THAT(schedule(), IsEmpty());
    allocator.Release("d");
    allocator.Release("e");
    allocator.Release("filler");
    ASSERT_TRUE(allocator.Enqueue(Gang("small", {2})).ok());
    EXPECT_THAT(schedule(), ElementsAre("small"));
    EXPECT_EQ(node_of.at("small"), pack ? node_of.at("b") : node_of.at("alone"));
  }
}

// The default options: gangs that arrive while the head waits never take
// the GPUs it reserved, so it starts once the gangs on them end.
TEST(GangAllocatorTest, UnderTheDefaultTheHeadStartsOnceItsReservedGpusFree) {
  GangAllocator allocator({4, 4});
  ASSERT_TRUE(allocator.Enqueue(Gang("x", {3})).ok());
  ASSERT_TRUE(allocator.Enqueue(Gang("y", {3})).ok());
  ASSERT_THAT(allocator.Schedule(), SizeIs(2));
  ASSERT_TRUE(allocator.Enqueue(Gang("head", {4, 4})).ok());
  ASSERT_THAT(allocator.Schedule(), IsEmpty());
  for (int i = 0; i < 20; ++i) {
    // Small gangs of every kind, some as far behind as the head by now.
    ASSERT_TRUE(allocator.Enqueue(Gang("s" + std::to_string(i), {1 + i % 2})).ok());
    EXPECT_THAT(allocator.Schedule(), IsEmpty()) << i;
    EXPECT_EQ(allocator.free_gpus(), 2);
  }
  allocator.Release("x");
  EXPECT_THAT(allocator.Schedule(), IsEmpty());
  allocator.Release("y");
  EXPECT_THAT(Ids(allocator.Schedule()), ElementsAre("head"));
}

// The same requests and releases give the same placements, for each
// policy with behind_first.
TEST(GangAllocatorTest, BehindFirstIsDeterministic) {
  for (const BackfillPolicy policy :
       {BackfillPolicy::kHeadReservation, BackfillPolicy::kBoundedBackfill}) {
    auto run = [policy] {
      std::mt19937_64 rng(7);
      auto uniform = [&](int low, int high) {
        return std::uniform_int_distribution<int>(low, high)(rng);
      };
      GangAllocator allocator(std::vector<int>(6, 4),
                              GangAllocatorOptions{policy, /*patience_per_gpu=*/2,
                                                   /*behind_first=*/true});
      std::vector<std::string> decisions;
      std::vector<std::string> running;
      for (int step = 0; step < 400; ++step) {
        std::vector<int> gpus(uniform(1, 3));
        for (int& count : gpus) count = uniform(1, 4);
        if (allocator.Enqueue(Gang("g" + std::to_string(step), gpus)).ok()) {
          for (const GangPlacement& placement : allocator.Schedule()) {
            std::string line = placement.id;
            for (const ReplicaPlacement& replica : placement.replicas) {
              line += " " + std::to_string(replica.node) + ":";
              for (int gpu : replica.gpus) line += std::to_string(gpu);
            }
            decisions.push_back(line);
            running.push_back(placement.id);
          }
        }
        if (!running.empty() && uniform(0, 1) == 0) {
          const size_t index = uniform(0, static_cast<int>(running.size()) - 1);
          allocator.Release(running[index]);
          running.erase(running.begin() + index);
        }
      }
      return decisions;
    };
    const std::vector<std::string> first = run();
    EXPECT_THAT(first, SizeIs(::testing::Gt(100)));
    EXPECT_EQ(first, run());
  }
}

TEST(GangAllocatorTest, ReplicasWithoutGpusNeedNoFreeGpu) {
  GangAllocator allocator({2});
  ASSERT_TRUE(allocator.Enqueue(Gang("full", {2})).ok());
  ASSERT_TRUE(allocator.Enqueue(Gang("waits", {2})).ok());
  ASSERT_TRUE(allocator.Enqueue(Gang("cpu", {0, 0})).ok());
  std::vector<GangPlacement> placed = allocator.Schedule();
  ASSERT_THAT(Ids(placed), ElementsAre("full", "cpu"));
  EXPECT_THAT(placed[1].replicas, ElementsAre(ReplicaPlacement{0, {}}, ReplicaPlacement{0, {}}));

  GangAllocator no_gpus({});
  ASSERT_TRUE(no_gpus.Enqueue(Gang("cpu", {0})).ok());
  EXPECT_THAT(Ids(no_gpus.Schedule()), ElementsAre("cpu"));
  EXPECT_EQ(no_gpus.Enqueue(Gang("gpu", {1})).code(), absl::StatusCode::kInvalidArgument);
}

TEST(GangAllocatorTest, CheckFeasibleNamesTheReplicaAndTheLargestNode) {
  GangAllocator allocator({8, 4});
  EXPECT_TRUE(allocator.CheckFeasible({8, 4}).ok());
  absl::Status too_big = allocator.CheckFeasible({1, 16});
  EXPECT_EQ(too_big.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(too_big.message(),
              HasSubstr("replica 1 needs 16 GPUs on one node, but the largest node has 8"));
  absl::Status negative = allocator.CheckFeasible({-1});
  EXPECT_EQ(negative.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(negative.message(), HasSubstr("replica 0 asks for -1 GPUs"));
  absl::Status too_many = allocator.CheckFeasible({8, 4, 1});
  EXPECT_EQ(too_many.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(too_many.message(), HasSubstr("need 13 GPUs in all, but the cluster has 12"));
}

TEST(GangAllocatorTest, CheckFeasibleRefusesWhatBestFitCannotPack) {
  // 20 GPUs for 20 asked, but best fit (5+4 on one node) strands a 2.
  GangAllocator allocator({10, 10});
  absl::Status status = allocator.CheckFeasible({5, 4, 4, 3, 2, 2});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("cannot be packed onto the nodes"));
  // Nothing was taken by the check.
  EXPECT_TRUE(allocator.CheckFeasible({10, 10}).ok());
}

TEST(GangAllocatorTest, EnqueueRefusesBadRequests) {
  GangAllocator allocator({8});
  absl::Status infeasible = allocator.Enqueue(Gang("t1", {2, 9}));
  EXPECT_EQ(infeasible.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(infeasible.message(), HasSubstr("gang t1 can never be placed: replica 1 needs 9"));
  EXPECT_EQ(allocator.Enqueue(Gang("", {1})).code(), absl::StatusCode::kInvalidArgument);
  absl::Status empty = allocator.Enqueue(Gang("t2", {}));
  EXPECT_EQ(empty.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(empty.message(), HasSubstr("gang t2 has no replicas"));
  EXPECT_EQ(allocator.queued_gangs(), 0);
}

TEST(GangAllocatorTest, EnqueueRefusesAnIdQueuedOrPlaced) {
  GangAllocator allocator({1});
  ASSERT_TRUE(allocator.Enqueue(Gang("a", {1})).ok());
  absl::Status queued = allocator.Enqueue(Gang("a", {1}));
  EXPECT_EQ(queued.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(queued.message(), HasSubstr("gang a is already queued or placed"));
  ASSERT_THAT(allocator.Schedule(), SizeIs(1));
  EXPECT_EQ(allocator.Enqueue(Gang("a", {1})).code(), absl::StatusCode::kAlreadyExists);
}

TEST(GangAllocatorTest, RestoreTakesTheGivenGpus) {
  GangAllocator allocator({4, 4});
  ASSERT_TRUE(allocator.Restore(GangPlacement{"old", {{1, {0, 3}}, {0, {2}}, {0, {}}}}).ok());
  EXPECT_EQ(allocator.free_gpus(), 5);
  ASSERT_TRUE(allocator.Enqueue(Gang("new", {4})).ok());
  std::vector<GangPlacement> placed = allocator.Schedule();
  EXPECT_THAT(placed, IsEmpty());  // No node has 4 free.
  allocator.Release("old");
  EXPECT_EQ(allocator.free_gpus(), 8);
  EXPECT_THAT(Ids(allocator.Schedule()), ElementsAre("new"));
}

TEST(GangAllocatorTest, RestoreRefusesUsedIdsAndHeldOrMissingGpus) {
  GangAllocator allocator({4, 2});
  ASSERT_TRUE(allocator.Restore(GangPlacement{"old", {{0, {1}}}}).ok());
  EXPECT_EQ(allocator.Restore(GangPlacement{"old", {{0, {2}}}}).code(),
            absl::StatusCode::kAlreadyExists);
  ASSERT_TRUE(allocator.Enqueue(Gang("queued", {4})).ok());
  EXPECT_EQ(allocator.Restore(GangPlacement{"queued", {{0, {2}}}}).code(),
            absl::StatusCode::kAlreadyExists);

  absl::Status overlap = allocator.Restore(GangPlacement{"other", {{0, {2}}, {0, {1}}}});
  EXPECT_EQ(overlap.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(overlap.message(), HasSubstr("gang other replica 1 holds GPU 1 of node 0"));
  absl::Status twice = allocator.Restore(GangPlacement{"other", {{1, {0}}, {1, {0}}}});
  EXPECT_EQ(twice.code(), absl::StatusCode::kFailedPrecondition);
  absl::Status no_node = allocator.Restore(GangPlacement{"other", {{2, {0}}}});
  EXPECT_EQ(no_node.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(no_node.message(), HasSubstr("node 2, which does not exist"));
  absl::Status no_gpu = allocator.Restore(GangPlacement{"other", {{1, {2}}}});
  EXPECT_EQ(no_gpu.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(no_gpu.message(), HasSubstr("GPU 2 of node 1, which has 2 GPUs"));
  // A refused restore takes nothing.
  EXPECT_EQ(allocator.free_gpus(), 5);
}

// Replays random enqueue/schedule/release sequences on random clusters
// against a model of what was asked, checking the invariants after every
// step.
class GangAllocatorPropertyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    seed_ = testing::SeedFrom("VERNIER_GANG_SEED");
    rng_.seed(seed_);
    RecordProperty("seed", std::to_string(seed_));
  }
  void TearDown() override {
    if (HasFailure()) {
      std::cout << "seed " << seed_ << ": rerun with VERNIER_GANG_SEED=" << seed_ << "\n";
    }
  }

  int Uniform(int low, int high) { return std::uniform_int_distribution<int>(low, high)(rng_); }

  uint64_t seed_ = 0;
  std::mt19937_64 rng_;
};

struct Model {
  std::vector<int> nodes;
  std::map<std::string, std::vector<int>> asked;
  std::deque<std::string> waiting;
  std::map<std::string, GangPlacement> placed;
  // The head being watched, and the gangs placed when it became the head
  // that have not been released since.
  std::string head;
  std::set<std::string> head_blockers;
};

void CheckInvariants(const GangAllocator& allocator, const Model& model) {
  std::set<std::pair<int, int>> held;
  for (const auto& [id, placement] : model.placed) {
    const std::vector<int>& asked = model.asked.at(id);
    ASSERT_EQ(placement.replicas.size(), asked.size()) << id;
    for (size_t replica = 0; replica < asked.size(); ++replica) {
      const ReplicaPlacement& where = placement.replicas[replica];
      ASSERT_EQ(static_cast<int>(where.gpus.size()), asked[replica]) << id << " " << replica;
      for (int gpu : where.gpus) {
        ASSERT_GE(where.node, 0);
        ASSERT_LT(where.node, static_cast<int>(model.nodes.size()));
        ASSERT_GE(gpu, 0);
        ASSERT_LT(gpu, model.nodes[where.node]) << id;
        ASSERT_TRUE(held.insert({where.node, gpu}).second)
            << "GPU " << gpu << " of node " << where.node << " held twice (" << id << ")";
      }
    }
  }
  ASSERT_EQ(allocator.free_gpus() + static_cast<int>(held.size()), allocator.total_gpus());
  ASSERT_EQ(allocator.queued_gangs(), static_cast<int>(model.waiting.size()));
}

void ScheduleAndCheck(GangAllocator& allocator, Model& model) {
  const bool head_unblocked = !model.head.empty() && model.head_blockers.empty();
  for (GangPlacement& placement : allocator.Schedule()) {
    auto waiting = std::find(model.waiting.begin(), model.waiting.end(), placement.id);
    ASSERT_NE(waiting, model.waiting.end()) << placement.id << " placed but not waiting";
    model.waiting.erase(waiting);
    model.placed[placement.id] = std::move(placement);
  }
  if (head_unblocked) {
    ASSERT_TRUE(model.placed.contains(model.head) || !model.asked.contains(model.head))
        << "head " << model.head << " still waits after every gang it waited for ended";
  }
  if (model.waiting.empty()) {
    model.head.clear();
  } else if (model.waiting.front() != model.head) {
    model.head = model.waiting.front();
    model.head_blockers.clear();
    for (const auto& [id, placement] : model.placed) model.head_blockers.insert(id);
  }
  CheckInvariants(allocator, model);
}

void Release(GangAllocator& allocator, Model& model, const std::string& id) {
  allocator.Release(id);
  model.placed.erase(id);
  model.waiting.erase(std::remove(model.waiting.begin(), model.waiting.end(), id),
                      model.waiting.end());
  model.asked.erase(id);
  model.head_blockers.erase(id);
  CheckInvariants(allocator, model);
}

TEST_F(GangAllocatorPropertyTest, RandomJobMixesKeepEveryInvariant) {
  int placed_large = 0;
  for (int round = 0; round < 150; ++round) {
    Model model;
    const int max_gpus = std::vector<int>{1, 2, 4, 8}[Uniform(0, 3)];
    model.nodes.resize(Uniform(1, 10));
    for (int& gpus : model.nodes) gpus = Uniform(0, 1) == 0 ? max_gpus : Uniform(0, max_gpus);
    // Either policy, with a patience that runs out within the round or not,
    // with behind_first (behind per GPU or per GPU^1.25 or ^2) or without,
    // keeping whole nodes or not, packing busy nodes or not.
    const GangAllocatorOptions options{
        Uniform(0, 1) == 0 ? BackfillPolicy::kHeadReservation : BackfillPolicy::kBoundedBackfill,
        Uniform(0, 3) == 0 ? 1000 : Uniform(0, 2),
        /*behind_first=*/Uniform(0, 1) == 0,
        /*behind_exponent=*/std::vector<double>{1.0, 1.25, 2.0}[Uniform(0, 2)],
        /*keep_whole_nodes=*/Uniform(0, 1) == 0,
        /*pack_busy_nodes=*/Uniform(0, 1) == 0};
    auto allocator = std::make_unique<GangAllocator>(model.nodes, options);
    int next_id = 0;
    for (int step = 0; step < 300; ++step) {
      const int action = Uniform(0, 9);
      if (action < 4) {
        // Mostly small gangs, some as large as the cluster.
        std::vector<int> gpus(Uniform(1, 4));
        const bool large = Uniform(0, 9) == 0;
        for (int& count : gpus) count = large ? max_gpus : Uniform(0, std::max(1, max_gpus / 2));
        const std::string id = "g" + std::to_string(next_id++);
        const absl::Status feasible = allocator->CheckFeasible(gpus);
        const absl::Status status = allocator->Enqueue(Gang(id, gpus));
        ASSERT_EQ(status.ok(), feasible.ok()) << status;
        if (!status.ok()) {
          ASSERT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
          continue;
        }
        model.asked[id] = gpus;
        model.waiting.push_back(id);
      } else if (action < 7) {
        ASSERT_NO_FATAL_FAILURE(ScheduleAndCheck(*allocator, model));
      } else if (action < 9 && !model.placed.empty()) {
        auto it = model.placed.begin();
        std::advance(it, Uniform(0, static_cast<int>(model.placed.size()) - 1));
        const std::string id = it->first;
        ASSERT_NO_FATAL_FAILURE(Release(*allocator, model, id));
      } else if (action == 9 && Uniform(0, 7) == 0) {
        // A server restart: what was placed is restored, what waited is
        // queued again in its order.
        allocator = std::make_unique<GangAllocator>(model.nodes, options);
        for (const auto& [id, placement] : model.placed) {
          ASSERT_TRUE(allocator->Restore(placement).ok()) << id;
        }
        for (const std::string& id : model.waiting) {
          ASSERT_TRUE(allocator->Enqueue(Gang(id, model.asked[id])).ok()) << id;
        }
        // The head reserves anew, for gangs placed since it became the head too.
        model.head.clear();
        ASSERT_NO_FATAL_FAILURE(CheckInvariants(*allocator, model));
      } else if (!model.waiting.empty() && Uniform(0, 3) == 0) {
        // A cancel of a waiting gang (the head included), or of no one.
        const std::string id =
            model.waiting[Uniform(0, static_cast<int>(model.waiting.size()) - 1)];
        ASSERT_NO_FATAL_FAILURE(Release(*allocator, model, id));
        ASSERT_NO_FATAL_FAILURE(Release(*allocator, model, "unknown"));
      }
    }
    // Drain: release what runs, one gang at a time; every gang gets placed.
    for (int pass = 0; !model.waiting.empty(); ++pass) {
      ASSERT_LT(pass, 1000) << "gangs starve: " << model.waiting.size() << " still wait";
      ASSERT_NO_FATAL_FAILURE(ScheduleAndCheck(*allocator, model));
      if (!model.placed.empty()) {
        const std::string id = model.placed.begin()->first;
        for (int gpus : model.asked[id]) placed_large += gpus == max_gpus ? 1 : 0;
        ASSERT_NO_FATAL_FAILURE(Release(*allocator, model, id));
      }
    }
  }
  EXPECT_GT(placed_large, 0);
}

}  // namespace
}  // namespace vernier::scheduler
