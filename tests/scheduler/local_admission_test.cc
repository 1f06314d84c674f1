#include "scheduler/local/local_admission.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace vernier::scheduler {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

bool AnyPort(int) { return true; }

const GangOwner kAda{"ada", "job1"};

v1::ReplicaSpec Replica(const std::string& role, int index, int gpus) {
  v1::ReplicaSpec replica;
  replica.set_role(role);
  replica.set_index(index);
  replica.set_machine_type("n1-standard-8");
  replica.set_gpu_count(gpus);
  return replica;
}

TEST(LocalAdmissionTest, GrantsWholeGangsInDeviceIndexesAndReleasesThem) {
  LocalAdmission admission({4, 5, 6}, {100, 199}, AnyPort);
  EXPECT_TRUE(admission.GrantsGpus());
  absl::StatusOr<GangTicket> first = admission.Request({1, 1}, kAda);
  absl::StatusOr<GangTicket> second = admission.Request({1, 1}, kAda);
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_NE(*first, *second);
  // Nothing is granted before Schedule.
  EXPECT_FALSE(admission.IsGranted(*first));
  EXPECT_EQ(admission.Grant(*first).status().code(), absl::StatusCode::kFailedPrecondition);

  admission.Schedule();
  EXPECT_TRUE(admission.IsGranted(*first));
  EXPECT_FALSE(admission.IsGranted(*second));
  EXPECT_EQ(admission.free_gpus(), 1);
  absl::StatusOr<GangGrant> grant = admission.Grant(*first);
  ASSERT_TRUE(grant.ok()) << grant.status();
  EXPECT_THAT(grant->gpus, ElementsAre(ElementsAre(4), ElementsAre(5)));
  EXPECT_THAT(grant->ports, ElementsAre(100, 101));

  admission.Release(*first);
  EXPECT_FALSE(admission.IsGranted(*first));
  EXPECT_EQ(admission.held_ports(), 0);
  admission.Schedule();
  EXPECT_TRUE(admission.IsGranted(*second));
  admission.Release(*second);
  EXPECT_EQ(admission.free_gpus(), 3);
  // Releasing twice, or an unknown ticket, is harmless.
  admission.Release(*second);
  admission.Release(GangTicket{999});
}

TEST(LocalAdmissionTest, AGangWithoutGpusIsGrantedAtOnce) {
  LocalAdmission admission({0, 1}, {100, 199}, AnyPort);
  absl::StatusOr<GangTicket> ticket = admission.Request({0, 0, 0}, kAda);
  ASSERT_TRUE(ticket.ok()) << ticket.status();
  EXPECT_TRUE(admission.IsGranted(*ticket));
  absl::StatusOr<GangGrant> grant = admission.Grant(*ticket);
  ASSERT_TRUE(grant.ok()) << grant.status();
  EXPECT_THAT(grant->gpus, ElementsAre(IsEmpty(), IsEmpty(), IsEmpty()));
  EXPECT_EQ(grant->ports.size(), 3u);
  EXPECT_EQ(admission.free_gpus(), 2);
}

TEST(LocalAdmissionTest, AGangThatCanNeverFitIsRefused) {
  LocalAdmission admission({0, 1}, {100, 199}, AnyPort);
  absl::StatusOr<GangTicket> ticket = admission.Request({2, 1}, kAda);
  EXPECT_EQ(ticket.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(LocalAdmissionTest, PortsStayWithTheirGangUntilReleased) {
  LocalAdmission admission({}, {100, 103}, AnyPort);
  EXPECT_FALSE(admission.GrantsGpus());
  absl::StatusOr<GangTicket> first = admission.Request({0, 0, 0}, kAda);
  ASSERT_TRUE(first.ok());
  EXPECT_THAT(admission.Grant(*first)->ports, ElementsAre(100, 101, 102));
  // A retry of the trial gets the same ports.
  EXPECT_THAT(admission.Grant(*first)->ports, ElementsAre(100, 101, 102));
  absl::StatusOr<GangTicket> second = admission.Request({0, 0, 0}, kAda);
  ASSERT_TRUE(second.ok());
  absl::StatusOr<GangGrant> none = admission.Grant(*second);
  EXPECT_EQ(none.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(none.status().message(), HasSubstr("needs 3 ports"));
  admission.Release(*first);
  EXPECT_TRUE(admission.Grant(*second).ok());
}

TEST(LocalAdmissionTest, RestoresWhatAStoredRunHolds) {
  LocalAdmission admission({0, 1, 2, 3}, {100, 199}, AnyPort);
  v1::TrialRun run;
  run.set_trial_id(1);
  for (int gpu : {2, 3}) {
    v1::ReplicaStatus& replica = *run.add_replicas();
    replica.add_gpus(gpu);
    replica.set_port(100 + gpu);
  }
  absl::StatusOr<GangTicket> restored = admission.Restore(run, kAda);
  ASSERT_TRUE(restored.ok()) << restored.status();
  EXPECT_TRUE(admission.IsGranted(*restored));
  EXPECT_EQ(admission.free_gpus(), 2);
  absl::StatusOr<GangGrant> grant = admission.Grant(*restored);
  ASSERT_TRUE(grant.ok()) << grant.status();
  EXPECT_THAT(grant->gpus, ElementsAre(ElementsAre(2), ElementsAre(3)));
  EXPECT_THAT(grant->ports, ElementsAre(102, 103));
  // Another trial cannot have them.
  EXPECT_EQ(admission.Restore(run, kAda).status().code(), absl::StatusCode::kFailedPrecondition);
  v1::TrialRun unknown;
  unknown.set_trial_id(3);
  unknown.add_replicas()->add_gpus(9);
  absl::Status status = admission.Restore(unknown, kAda).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(), HasSubstr("GPU 9 is not in this server's inventory"));
  // A failed restore holds nothing.
  admission.Release(*restored);
  EXPECT_EQ(admission.free_gpus(), 4);
  EXPECT_EQ(admission.held_ports(), 0);
}

TEST(LocalAdmissionTest, ARestoredRunWhosePortsAreTakenGivesItsGpusBack) {
  LocalAdmission admission({0, 1}, {100, 199}, AnyPort);
  v1::TrialRun first;
  first.add_replicas()->set_port(100);
  ASSERT_TRUE(admission.Restore(first, kAda).ok());
  v1::TrialRun second;
  v1::ReplicaStatus& replica = *second.add_replicas();
  replica.add_gpus(0);
  replica.set_port(100);
  EXPECT_EQ(admission.Restore(second, kAda).status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(admission.free_gpus(), 2);
}

// Requests `count` one-GPU gangs of `owner` and returns their tickets.
std::vector<GangTicket> RequestOnes(LocalAdmission& admission, const GangOwner& owner, int count) {
  std::vector<GangTicket> tickets;
  for (int i = 0; i < count; ++i) {
    absl::StatusOr<GangTicket> ticket = admission.Request({1}, owner);
    EXPECT_TRUE(ticket.ok()) << ticket.status();
    if (ticket.ok()) tickets.push_back(*ticket);
  }
  return tickets;
}

int GrantedOf(LocalAdmission& admission, const std::vector<GangTicket>& tickets) {
  int granted = 0;
  for (GangTicket ticket : tickets) granted += admission.IsGranted(ticket) ? 1 : 0;
  return granted;
}

TEST(LocalAdmissionTest, TwoUsersWithEqualSharesEachGetHalfAsGpusFreeUp) {
  LocalAdmission admission({0, 1, 2, 3}, {100, 199}, AnyPort);
  const GangOwner alice{"alice", "a"};
  const GangOwner bob{"bob", "b"};
  std::vector<GangTicket> alices = RequestOnes(admission, alice, 8);
  admission.Schedule();
  EXPECT_EQ(GrantedOf(admission, alices), 4);
  std::vector<GangTicket> bobs = RequestOnes(admission, bob, 4);
  admission.Schedule();
  // Every GPU is alice's until one of her trials ends.
  EXPECT_EQ(GrantedOf(admission, bobs), 0);
  std::optional<GangWait> waiting = admission.Waiting("b");
  ASSERT_TRUE(waiting.has_value());
  EXPECT_EQ(waiting->position, 1);
  EXPECT_EQ(waiting->reason, "1st in the queue; the trial needs 1 GPU, 0 are free");
  EXPECT_EQ(admission.Waiting("a")->reason,
            "5th in the queue; alice's share is 2 of 4 GPUs, holds 4");
  // Each GPU alice frees goes to bob until they hold 2 each.
  admission.Release(alices[0]);
  admission.Schedule();
  EXPECT_EQ(GrantedOf(admission, bobs), 1);
  admission.Release(alices[1]);
  admission.Schedule();
  EXPECT_EQ(GrantedOf(admission, bobs), 2);
  EXPECT_EQ(GrantedOf(admission, alices), 2);
  // Then the freed GPU goes back to whoever holds fewer.
  admission.Release(alices[2]);
  admission.Schedule();
  EXPECT_EQ(GrantedOf(admission, alices), 2);
  EXPECT_EQ(GrantedOf(admission, bobs), 2);
  admission.Release(bobs[0]);
  admission.Schedule();
  EXPECT_EQ(GrantedOf(admission, alices), 2);
  EXPECT_EQ(GrantedOf(admission, bobs), 2);
  EXPECT_EQ(admission.free_gpus(), 0);
}

TEST(LocalAdmissionTest, AUserAtTheQuotaWaitsWhileGpusAreFree) {
  GpuSharePolicy share;
  share.quota_per_user = 2;
  LocalAdmission admission({0, 1, 2, 3}, {100, 199}, AnyPort, 0, share);
  std::vector<GangTicket> alices = RequestOnes(admission, {"alice", "a"}, 3);
  admission.Schedule();
  EXPECT_EQ(GrantedOf(admission, alices), 2);
  EXPECT_EQ(admission.free_gpus(), 2);
  std::optional<GangWait> waiting = admission.Waiting("a");
  ASSERT_TRUE(waiting.has_value());
  EXPECT_EQ(waiting->position, 1);
  EXPECT_EQ(waiting->reason,
            "1st in the queue; alice holds 2 of a quota of 2 GPUs (--gpu-quota-per-user 2); the "
            "trial needs 1");
  // Another user is not held back by alice's quota.
  std::vector<GangTicket> bobs = RequestOnes(admission, {"bob", "b"}, 1);
  admission.Schedule();
  EXPECT_EQ(GrantedOf(admission, bobs), 1);
  EXPECT_EQ(admission.Waiting("b"), std::nullopt);
  admission.Release(alices[0]);
  admission.Schedule();
  EXPECT_TRUE(admission.IsGranted(alices[2]));
  EXPECT_EQ(admission.Waiting("a"), std::nullopt);
}

TEST(LocalAdmissionTest, AGangOverAQuotaIsRefusedAtSubmitAndAtRequest) {
  GpuSharePolicy share;
  share.user_quotas["alice"] = 1;
  LocalAdmission admission({0, 1, 2, 3}, {100, 199}, AnyPort, 0, share);
  const GangOwner alice{"alice", "a"};
  absl::Status capacity =
      admission.CheckCapacity({Replica("master", 0, 1), Replica("worker", 0, 1)}, alice);
  EXPECT_EQ(capacity.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(capacity.message(),
            "a trial needs 2 GPUs but alice may hold at most 1 GPU (`vernier serve --gpu-quota "
            "alice=1`)");
  EXPECT_TRUE(admission.CheckCapacity({Replica("master", 0, 1)}, alice).ok());
  EXPECT_TRUE(admission.CheckCapacity({Replica("master", 0, 2)}, kAda).ok());
  // A trial without GPUs needs no quota.
  EXPECT_TRUE(admission.CheckCapacity({Replica("master", 0, 0)}, GangOwner{"alice", "a"}).ok());
  absl::StatusOr<GangTicket> request = admission.Request({1, 1}, alice);
  EXPECT_EQ(request.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(request.status().message(), HasSubstr("--gpu-quota alice=1"));
  EXPECT_TRUE(admission.Request({0, 0}, alice).ok());
}

TEST(LocalAdmissionTest, RestoredGangsCountAgainstTheirUsersShare) {
  LocalAdmission admission({0, 1, 2, 3}, {100, 199}, AnyPort);
  v1::TrialRun run;
  run.add_replicas()->add_gpus(0);
  run.mutable_replicas(0)->add_gpus(1);
  run.mutable_replicas(0)->add_gpus(2);
  ASSERT_TRUE(admission.Restore(run, {"alice", "a"}).ok());
  std::vector<GangTicket> alices = RequestOnes(admission, {"alice", "a"}, 1);
  std::vector<GangTicket> bobs = RequestOnes(admission, {"bob", "b"}, 1);
  admission.Schedule();
  // alice holds 3 already: bob's later gang goes first.
  EXPECT_EQ(GrantedOf(admission, bobs), 1);
  EXPECT_EQ(GrantedOf(admission, alices), 0);
  EXPECT_EQ(admission.Waiting("a")->reason, "1st in the queue; the trial needs 1 GPU, 0 are free");
}

TEST(LocalAdmissionTest, CapacityIsThisMachinesGpus) {
  LocalAdmission admission({0, 1, 2, 3}, {100, 199}, AnyPort);
  EXPECT_TRUE(
      admission.CheckCapacity({Replica("master", 0, 2), Replica("worker", 0, 2)}, kAda).ok());
  EXPECT_TRUE(admission.CheckCapacity({}, kAda).ok());
  absl::Status total = admission.CheckCapacity(
      {Replica("master", 0, 2), Replica("worker", 0, 2), Replica("worker", 1, 2)}, kAda);
  EXPECT_EQ(total.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(total.message(),
            "a trial needs 6 GPUs in all, its replicas together, but this server has 4 GPUs "
            "(`vernier serve --gpus` sets them); every replica of a trial runs here and they "
            "start together");
  absl::Status one = LocalAdmission({0}, {100, 199}, AnyPort)
                         .CheckCapacity({Replica("master", 0, 0), Replica("worker", 1, 2)}, kAda);
  EXPECT_EQ(one.message(),
            "worker-1 needs 2 GPUs (n1-standard-8) but this server has 1 GPU (`vernier serve "
            "--gpus` sets them)");
}

}  // namespace
}  // namespace vernier::scheduler
