#include "trainer-agent/process_tree.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <optional>
#include <vector>

namespace vernier::agent {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

std::vector<pid_t> Pids(const std::vector<ProcessEntry>& entries) {
  std::vector<pid_t> pids;
  for (const ProcessEntry& entry : entries) pids.push_back(entry.pid);
  return pids;
}

TEST(ProcessTreeTest, ParsesStatLinesWhateverTheCommandName) {
  const std::optional<ProcessEntry> plain =
      ProcessTree::ParseStat("1234 (python3) S 1200 1234 1234 0 -1 4194560 ...\n");
  ASSERT_TRUE(plain.has_value());
  EXPECT_EQ(plain->pid, 1234);
  EXPECT_EQ(plain->parent, 1200);
  EXPECT_EQ(plain->state, 'S');
  EXPECT_EQ(plain->process_group, 1234);
  EXPECT_TRUE(plain->alive());

  const std::optional<ProcessEntry> odd =
      ProcessTree::ParseStat("77 (a) b (c) Z 76 70 70 0 -1 4194560 ...");
  ASSERT_TRUE(odd.has_value());
  EXPECT_EQ(odd->parent, 76);
  EXPECT_EQ(odd->state, 'Z');
  EXPECT_FALSE(odd->alive());

  EXPECT_EQ(ProcessTree::ParseStat("garbage"), std::nullopt);
  EXPECT_EQ(ProcessTree::ParseStat("12 (x) S"), std::nullopt);
}

TEST(ProcessTreeTest, DescendantsFollowParentLinksAcrossSessions) {
  // 10 -> 11 -> 12 (own session) -> 13; 10 -> 14; 20 -> 21 is another tree.
  const std::vector<ProcessEntry> table = {{10, 1, 'S', 10},  {11, 10, 'S', 10}, {12, 11, 'S', 12},
                                           {13, 12, 'R', 12}, {14, 10, 'Z', 10}, {20, 1, 'S', 20},
                                           {21, 20, 'S', 20}};
  std::vector<pid_t> below = Pids(ProcessTree::Descendants(10, table));
  std::sort(below.begin(), below.end());
  EXPECT_THAT(below, ElementsAre(11, 12, 13, 14));
  EXPECT_THAT(Pids(ProcessTree::Descendants(12, table)), ElementsAre(13));
  EXPECT_THAT(ProcessTree::Descendants(13, table), IsEmpty());
  // Parents come before their children.
  const std::vector<pid_t> order = Pids(ProcessTree::Descendants(10, table));
  EXPECT_LT(std::find(order.begin(), order.end(), 11), std::find(order.begin(), order.end(), 12));
  EXPECT_LT(std::find(order.begin(), order.end(), 12), std::find(order.begin(), order.end(), 13));
}

TEST(ProcessTreeTest, ScanFindsThisProcess) {
  const std::vector<ProcessEntry> table = ProcessTree::Scan();
  bool found = false;
  for (const ProcessEntry& entry : table) {
    if (entry.pid == getpid()) {
      found = true;
      EXPECT_EQ(entry.parent, getppid());
      EXPECT_EQ(entry.process_group, getpgrp());
    }
  }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace vernier::agent
