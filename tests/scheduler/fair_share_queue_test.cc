#include "scheduler/fair_share_queue.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"

namespace vernier::scheduler {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Optional;

GangOwner Of(const std::string& user, const std::string& job = "") {
  return GangOwner{user, job.empty() ? user + "_job" : job};
}

TEST(FairShareQueueTest, OneUsersGangsStartFirstComeFirstServed) {
  FairShareQueue queue({});
  EXPECT_EQ(queue.Next(), std::nullopt);
  queue.Add(1, Of("alice"), 2);
  queue.Add(2, Of("alice"), 1);
  queue.Add(3, Of("alice"), 1);
  EXPECT_THAT(queue.Next(), Optional(1));
  queue.Start(1);
  EXPECT_EQ(queue.HeldBy("alice"), 2);
  EXPECT_EQ(queue.HeldByJob("alice_job"), 2);
  EXPECT_THAT(queue.Next(), Optional(2));
  EXPECT_THAT(queue.Order(), ElementsAre(2, 3));
}

TEST(FairShareQueueTest, FreedGpusGoToTheUserHoldingFewest) {
  FairShareQueue queue({});
  for (int64_t id = 1; id <= 4; ++id) {
    queue.Add(id, Of("alice"), 1);
    queue.Start(id);
  }
  // alice's gang waited first, but alice holds 4 and bob none.
  queue.Add(5, Of("alice"), 1);
  queue.Add(6, Of("bob"), 1);
  queue.Add(7, Of("bob"), 1);
  EXPECT_THAT(queue.Next(), Optional(6));
  queue.Remove(1);
  queue.Start(6);
  // alice 3, bob 1: bob again.
  EXPECT_THAT(queue.Next(), Optional(7));
  queue.Remove(2);
  queue.Start(7);
  // alice 2, bob 2: the oldest gang first.
  EXPECT_THAT(queue.Next(), Optional(5));
  queue.Add(8, Of("bob"), 1);
  EXPECT_THAT(queue.Order(), ElementsAre(5, 8));
}

TEST(FairShareQueueTest, TheOrderCountsTheGpusEachGangWouldTake) {
  FairShareQueue queue({});
  queue.Hold(1, Of("alice"), 2);
  queue.Add(2, Of("alice"), 1);
  queue.Add(3, Of("alice"), 1);
  queue.Add(4, Of("bob"), 1);
  queue.Add(5, Of("bob"), 1);
  queue.Add(6, Of("bob"), 1);
  // bob 0 -> 1 -> 2 (tied with alice's 2: alice's older gang), then bob 2
  // against alice 3, then alice.
  EXPECT_THAT(queue.Order(), ElementsAre(4, 5, 2, 6, 3));
}

TEST(FairShareQueueTest, WeightsScaleTheShares) {
  GpuSharePolicy policy;
  policy.weights["alice"] = 2;
  FairShareQueue queue(policy);
  queue.Hold(1, Of("alice"), 3);
  queue.Hold(2, Of("bob"), 1);
  queue.Add(3, Of("alice"), 1);
  queue.Add(4, Of("bob"), 1);
  // alice 3/2 = 1.5 per weight, bob 1/1.
  EXPECT_THAT(queue.Next(), Optional(4));
  queue.Remove(1);
  queue.Hold(5, Of("alice"), 1);
  // alice 1/2, bob 1/1.
  EXPECT_THAT(queue.Next(), Optional(3));
}

TEST(FairShareQueueTest, AUserAtTheQuotaWaitsAndTheOthersPass) {
  GpuSharePolicy policy;
  policy.quota_per_user = 2;
  policy.user_quotas["carol"] = 3;
  FairShareQueue queue(policy);
  queue.Hold(1, Of("alice"), 2);
  queue.Add(2, Of("alice"), 1);
  EXPECT_EQ(queue.Next(), std::nullopt);
  queue.Add(3, Of("bob"), 2);
  EXPECT_THAT(queue.Next(), Optional(3));
  queue.Start(3);
  EXPECT_EQ(queue.Next(), std::nullopt);
  // carol's own quota replaces the per-user one.
  queue.Add(4, Of("carol"), 3);
  EXPECT_THAT(queue.Next(), Optional(4));
  // A gang that would take its user past the quota comes last.
  queue.Remove(1);
  queue.Hold(5, Of("alice"), 1);
  queue.Add(6, Of("alice"), 2);
  EXPECT_THAT(queue.Order(), ElementsAre(4, 2, 6));
}

TEST(FairShareQueueTest, AJobAtItsQuotaWaitsAndItsOwnersOtherJobsPass) {
  GpuSharePolicy policy;
  policy.quota_per_job = 2;
  FairShareQueue queue(policy);
  queue.Hold(1, Of("alice", "one"), 2);
  queue.Add(2, Of("alice", "one"), 1);
  queue.Add(3, Of("alice", "two"), 1);
  EXPECT_THAT(queue.Next(), Optional(3));
  EXPECT_THAT(queue.Order(), ElementsAre(3, 2));
  std::optional<GangWait> wait = queue.WaitOf("one", 4, 2);
  ASSERT_TRUE(wait.has_value());
  EXPECT_EQ(wait->position, 2);
  EXPECT_EQ(wait->reason,
            "2nd in the queue; job one holds 2 of a quota of 2 GPUs (--gpu-quota-per-job 2); "
            "the trial needs 1");
}

TEST(FairShareQueueTest, GangsOverAQuotaCanNeverStart) {
  GpuSharePolicy policy;
  policy.quota_per_user = 4;
  policy.user_quotas["bob"] = 0;
  policy.quota_per_job = 2;
  FairShareQueue queue(policy);
  EXPECT_TRUE(queue.CheckQuota(2, Of("alice")).ok());
  absl::Status user = queue.CheckQuota(5, Of("alice"));
  EXPECT_EQ(user.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(user.message(),
            "a trial needs 5 GPUs but alice may hold at most 4 GPUs (`vernier serve "
            "--gpu-quota-per-user 4`)");
  EXPECT_EQ(queue.CheckQuota(1, Of("bob")).message(),
            "a trial needs 1 GPU but bob may hold at most 0 GPUs (`vernier serve --gpu-quota "
            "bob=0`)");
  absl::Status job = queue.CheckQuota(3, Of("alice"));
  EXPECT_EQ(job.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(job.message(),
            "a trial needs 3 GPUs but a job may hold at most 2 GPUs (`vernier serve "
            "--gpu-quota-per-job 2`)");
  EXPECT_TRUE(FairShareQueue({}).CheckQuota(1000, Of("alice")).ok());
}

TEST(FairShareQueueTest, EachWaitingJobKnowsItsPlaceAndWhy) {
  GpuSharePolicy policy;
  policy.user_quotas["carol"] = 1;
  FairShareQueue queue(policy);
  queue.Hold(1, Of("alice", "a1"), 3);
  queue.Hold(2, Of("carol", "c1"), 1);
  queue.Add(3, Of("alice", "a1"), 1);
  queue.Add(4, Of("bob", "b1"), 2);
  queue.Add(5, Of("carol", "c1"), 1);
  EXPECT_EQ(queue.WaitOf("nobody", 4, 0), std::nullopt);
  std::optional<GangWait> bob = queue.WaitOf("b1", 4, 0);
  ASSERT_TRUE(bob.has_value());
  EXPECT_EQ(bob->position, 1);
  EXPECT_EQ(bob->reason, "1st in the queue; the trial needs 2 GPUs, 0 are free");
  std::optional<GangWait> alice = queue.WaitOf("a1", 4, 0);
  ASSERT_TRUE(alice.has_value());
  EXPECT_EQ(alice->position, 2);
  // alice, bob and carol want GPUs: a third of 4 each.
  EXPECT_EQ(alice->reason, "2nd in the queue; alice's share is 1.3 of 4 GPUs, holds 3");
  std::optional<GangWait> carol = queue.WaitOf("c1", 4, 0);
  ASSERT_TRUE(carol.has_value());
  EXPECT_EQ(carol->position, 3);
  EXPECT_EQ(carol->reason,
            "3rd in the queue; carol holds 1 of a quota of 1 GPU (--gpu-quota carol=1); the "
            "trial needs 1");
  EXPECT_THAT(FairShareQueue({}).WaitOf("b1", 4, 1), std::nullopt);
}

TEST(FairShareQueueTest, PositionsAreOrdinals) {
  FairShareQueue queue({});
  for (int64_t id = 1; id <= 23; ++id) queue.Add(id, Of("alice", absl::StrCat("j", id)), 1);
  EXPECT_THAT(queue.WaitOf("j1", 1, 0)->reason, HasSubstr("1st in the queue"));
  EXPECT_THAT(queue.WaitOf("j2", 1, 0)->reason, HasSubstr("2nd in the queue"));
  EXPECT_THAT(queue.WaitOf("j3", 1, 0)->reason, HasSubstr("3rd in the queue"));
  EXPECT_THAT(queue.WaitOf("j4", 1, 0)->reason, HasSubstr("4th in the queue"));
  EXPECT_THAT(queue.WaitOf("j11", 1, 0)->reason, HasSubstr("11th in the queue"));
  EXPECT_THAT(queue.WaitOf("j12", 1, 0)->reason, HasSubstr("12th in the queue"));
  EXPECT_THAT(queue.WaitOf("j13", 1, 0)->reason, HasSubstr("13th in the queue"));
  EXPECT_THAT(queue.WaitOf("j21", 1, 0)->reason, HasSubstr("21st in the queue"));
  EXPECT_THAT(queue.WaitOf("j22", 1, 0)->reason, HasSubstr("22nd in the queue"));
  EXPECT_EQ(queue.WaitOf("j23", 1, 0)->reason,
            "23rd in the queue; alice's share is 1 of 1 GPU, holds 0");
}

TEST(FairShareQueueTest, RemovingFreesHeldGpusAndDropsWaitingGangs) {
  FairShareQueue queue({});
  queue.Add(1, Of("alice"), 2);
  queue.Start(1);
  queue.Add(2, Of("alice"), 1);
  queue.Remove(2);
  EXPECT_EQ(queue.Next(), std::nullopt);
  EXPECT_EQ(queue.HeldBy("alice"), 2);
  queue.Remove(1);
  EXPECT_EQ(queue.HeldBy("alice"), 0);
  EXPECT_EQ(queue.HeldByJob("alice_job"), 0);
  // Unknown ids, twice removed or never added, are ignored.
  queue.Remove(1);
  queue.Remove(99);
  queue.Start(99);
  EXPECT_EQ(queue.HeldBy("alice"), 0);
}

TEST(FairShareQueueTest, JobsWithoutAnOwnerShareAsOneUser) {
  GpuSharePolicy policy;
  policy.quota_per_user = 1;
  FairShareQueue queue(policy);
  queue.Hold(1, GangOwner{"", "old"}, 1);
  queue.Add(2, GangOwner{"", "older"}, 1);
  EXPECT_EQ(queue.Next(), std::nullopt);
  EXPECT_THAT(queue.WaitOf("older", 2, 1)->reason,
              HasSubstr("(no owner) holds 1 of a quota of 1 GPU (--gpu-quota-per-user 1)"));
}

}  // namespace
}  // namespace vernier::scheduler
