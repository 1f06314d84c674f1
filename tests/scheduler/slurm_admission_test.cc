// The Slurm admission without a cluster: what it grants itself (ports);
// its capacity check runs against the test cluster in slurm_backend_test.
#include "scheduler/slurm/slurm_admission.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace vernier::scheduler {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

class SlurmAdmissionTest : public ::testing::Test {
 protected:
  SlurmBackend backend_;
  SlurmAdmission admission_{backend_, {100, 103}, [](int) { return true; }};
};

TEST_F(SlurmAdmissionTest, GrantsEveryGangAtOnceWithPortsAndLeavesTheGpusToSlurm) {
  EXPECT_FALSE(admission_.GrantsGpus());
  absl::StatusOr<GangTicket> ticket = admission_.Request({4, 0}, {"ada", "job1"});
  ASSERT_TRUE(ticket.ok()) << ticket.status();
  EXPECT_TRUE(admission_.IsGranted(*ticket));
  absl::StatusOr<GangGrant> grant = admission_.Grant(*ticket);
  ASSERT_TRUE(grant.ok()) << grant.status();
  EXPECT_THAT(grant->gpus, ElementsAre(IsEmpty(), IsEmpty()));
  EXPECT_THAT(grant->ports, ElementsAre(100, 101));
  admission_.Release(*ticket);
  EXPECT_FALSE(admission_.IsGranted(*ticket));
}

TEST_F(SlurmAdmissionTest, RestoresARunsPortsButNotItsSlurmGpus) {
  v1::TrialRun run;
  v1::ReplicaStatus& replica = *run.add_replicas();
  replica.add_gpus(7);
  replica.set_port(102);
  absl::StatusOr<GangTicket> ticket = admission_.Restore(run, {"ada", "job1"});
  ASSERT_TRUE(ticket.ok()) << ticket.status();
  absl::StatusOr<GangGrant> grant = admission_.Grant(*ticket);
  ASSERT_TRUE(grant.ok()) << grant.status();
  EXPECT_THAT(grant->ports, ElementsAre(102));
  EXPECT_THAT(grant->gpus, ElementsAre(IsEmpty()));
}

}  // namespace
}  // namespace vernier::scheduler
