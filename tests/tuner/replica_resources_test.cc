#include "tuner/replica_resources.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace vernier::tuner {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

bool AnyPort(int) { return true; }

TEST(ReplicaResourcesTest, GrantsWholeGangsInDeviceIndexesAndReleasesThem) {
  ReplicaResources resources({4, 5, 6}, {100, 199}, AnyPort);
  ASSERT_TRUE(resources.Enqueue("a/pending-1", {1, 1}).ok());
  ASSERT_TRUE(resources.Enqueue("a/pending-2", {1, 1}).ok());
  resources.Schedule();
  EXPECT_THAT(resources.TakeGranted("b/"), IsEmpty());
  EXPECT_THAT(resources.TakeGranted("a/"), ElementsAre("a/pending-1"));
  EXPECT_THAT(resources.TakeGranted("a/"), IsEmpty());
  EXPECT_EQ(resources.CountGangs("a/pending-"), 2);
  EXPECT_EQ(resources.free_gpus(), 1);

  ASSERT_TRUE(resources.Rename("a/pending-1", "a/7").ok());
  EXPECT_EQ(resources.CountGangs("a/pending-"), 1);
  EXPECT_THAT(resources.GpusOf("a/7", 2), ElementsAre(ElementsAre(4), ElementsAre(5)));
  EXPECT_THAT(resources.GpusOf("a/8", 2), ElementsAre(IsEmpty(), IsEmpty()));

  resources.Release("a/7");
  EXPECT_FALSE(resources.Holds("a/7"));
  resources.Schedule();
  EXPECT_THAT(resources.TakeGranted("a/"), ElementsAre("a/pending-2"));
  resources.ReleasePrefix("a/");
  EXPECT_EQ(resources.free_gpus(), 3);
  EXPECT_EQ(resources.CountGangs("a/"), 0);
}

TEST(ReplicaResourcesTest, PortsStayWithTheirTrialUntilReleased) {
  ReplicaResources resources({}, {100, 103}, AnyPort);
  absl::StatusOr<std::vector<int>> ports = resources.Ports("a/1", 3);
  ASSERT_TRUE(ports.ok()) << ports.status();
  EXPECT_THAT(*ports, ElementsAre(100, 101, 102));
  // A retry gets the same ports.
  EXPECT_THAT(*resources.Ports("a/1", 3), ElementsAre(100, 101, 102));
  EXPECT_EQ(resources.Ports("a/2", 3).status().code(), absl::StatusCode::kResourceExhausted);
  resources.Release("a/1");
  EXPECT_TRUE(resources.Ports("a/2", 3).ok());
}

TEST(ReplicaResourcesTest, RestoresWhatAStoredRunHolds) {
  ReplicaResources resources({0, 1, 2, 3}, {100, 199}, AnyPort);
  v1::TrialRun run;
  for (int gpu : {2, 3}) {
    v1::ReplicaStatus& replica = *run.add_replicas();
    replica.add_gpus(gpu);
    replica.set_port(100 + gpu);
  }
  ASSERT_TRUE(resources.Restore("a/1", run).ok());
  EXPECT_EQ(resources.free_gpus(), 2);
  EXPECT_THAT(resources.GpusOf("a/1", 2), ElementsAre(ElementsAre(2), ElementsAre(3)));
  EXPECT_THAT(*resources.Ports("a/1", 2), ElementsAre(102, 103));
  // Another trial cannot have them.
  EXPECT_EQ(resources.Restore("b/1", run).code(), absl::StatusCode::kFailedPrecondition);
  v1::TrialRun unknown;
  unknown.add_replicas()->add_gpus(9);
  absl::Status status = resources.Restore("c/1", unknown);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(), ::testing::HasSubstr("GPU 9 is not in this server's inventory"));
}

}  // namespace
}  // namespace vernier::tuner
