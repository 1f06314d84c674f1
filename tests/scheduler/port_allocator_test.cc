#include "scheduler/port_allocator.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"

namespace vernier::scheduler {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

bool AnyPort(int) { return true; }

TEST(PortRangeTest, ParsesFirstAndLast) {
  absl::StatusOr<PortRange> range = PortRange::Parse("20000-20009");
  ASSERT_TRUE(range.ok()) << range.status();
  EXPECT_EQ(range->first, 20000);
  EXPECT_EQ(range->last, 20009);
}

TEST(PortRangeTest, RejectsMalformedRanges) {
  for (const char* text : {"", "20000", "a-b", "0-10", "100-70000", "30000-20000", "1-2-3"}) {
    absl::StatusOr<PortRange> range = PortRange::Parse(text);
    EXPECT_EQ(range.status().code(), absl::StatusCode::kInvalidArgument) << text;
    EXPECT_THAT(range.status().message(), HasSubstr(absl::StrCat("\"", text, "\""))) << text;
  }
}

TEST(PortAllocatorTest, OwnersGetDistinctPortsUntilReleased) {
  PortAllocator ports({100, 105});
  absl::StatusOr<std::vector<int>> first = ports.Acquire("job/1", 4, AnyPort);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_THAT(*first, ElementsAre(100, 101, 102, 103));
  absl::StatusOr<std::vector<int>> second = ports.Acquire("job/2", 4, AnyPort);
  EXPECT_EQ(second.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(second.status().message(), HasSubstr("job/2 needs 4 ports but only 2"));
  EXPECT_EQ(ports.held_count(), 4);

  ports.Release("job/1");
  EXPECT_EQ(ports.held_count(), 0);
  second = ports.Acquire("job/2", 4, AnyPort);
  ASSERT_TRUE(second.ok()) << second.status();
  // Searched on from the last port handed out.
  EXPECT_THAT(*second, ElementsAre(104, 105, 100, 101));
  EXPECT_THAT(ports.HeldBy("job/2"), ElementsAre(104, 105, 100, 101));
  ports.Release("unknown");
  EXPECT_EQ(ports.held_count(), 4);
}

TEST(PortAllocatorTest, TheFirstSearchStartsAtTheOffset) {
  PortAllocator ports({100, 109}, 23);
  EXPECT_THAT(*ports.Acquire("job/1", 2, AnyPort), ElementsAre(103, 104));
}

TEST(PortAllocatorTest, SkipsPortsOtherProgramsUse) {
  PortAllocator ports({100, 109});
  absl::StatusOr<std::vector<int>> got =
      ports.Acquire("job/1", 3, [](int port) { return port % 2 == 1; });
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_THAT(*got, ElementsAre(101, 103, 105));
}

TEST(PortAllocatorTest, AnOwnerHoldsOneSetAtATime) {
  PortAllocator ports({100, 109});
  ASSERT_TRUE(ports.Acquire("job/1", 1, AnyPort).ok());
  EXPECT_EQ(ports.Acquire("job/1", 1, AnyPort).status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(ports.Restore("job/1", {105}).code(), absl::StatusCode::kAlreadyExists);
}

TEST(PortAllocatorTest, RestoreRefusesPortsOutsideTheRangeOrHeld) {
  PortAllocator ports({100, 109});
  ASSERT_TRUE(ports.Restore("job/1", {107, 108}).ok());
  absl::Status outside = ports.Restore("job/2", {99});
  EXPECT_EQ(outside.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(outside.message(), HasSubstr("port 99 is outside 100-109"));
  absl::Status taken = ports.Restore("job/2", {108});
  EXPECT_EQ(taken.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(taken.message(), HasSubstr("port 108 is held by job/1"));
  // Restored ports are never handed out again while held.
  absl::StatusOr<std::vector<int>> rest = ports.Acquire("job/3", 8, AnyPort);
  ASSERT_TRUE(rest.ok()) << rest.status();
  EXPECT_THAT(*rest, ElementsAre(100, 101, 102, 103, 104, 105, 106, 109));
}

TEST(PortAllocatorTest, NoPortIsEverHeldTwiceUnderRandomChurn) {
  PortAllocator ports({1000, 1063});
  std::mt19937 random(7);
  std::map<std::string, std::vector<int>> live;
  for (int step = 0; step < 2000; ++step) {
    const std::string owner = absl::StrCat("trial/", random() % 40);
    if (live.contains(owner)) {
      ports.Release(owner);
      live.erase(owner);
    } else {
      const int count = 1 + static_cast<int>(random() % 6);
      absl::StatusOr<std::vector<int>> got = ports.Acquire(owner, count, AnyPort);
      if (got.ok()) live[owner] = *got;
    }
    std::set<int> seen;
    for (const auto& [name, held] : live) {
      for (int port : held) EXPECT_TRUE(seen.insert(port).second) << "port " << port << " twice";
    }
    ASSERT_EQ(static_cast<int>(seen.size()), ports.held_count());
  }
}

}  // namespace
}  // namespace vernier::scheduler
