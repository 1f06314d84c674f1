#include "tuner/agent_liveness.h"

#include <gtest/gtest.h>

namespace vernier::tuner {
namespace {

const absl::Time kStart = absl::FromUnixSeconds(1'700'000'000);

TEST(AgentLivenessTest, AReplicaNeverHeardFromStartsItsClockAtTheFirstCheck) {
  AgentLiveness liveness;
  const AgentLiveness::Replica master{"sweep", 3, "master", 0};
  EXPECT_EQ(liveness.SilentFor(master, kStart), absl::ZeroDuration());
  EXPECT_EQ(liveness.SilentFor(master, kStart + absl::Seconds(40)), absl::Seconds(40));
}

TEST(AgentLivenessTest, HearingFromTheAgentResetsItsClock) {
  AgentLiveness liveness;
  const AgentLiveness::Replica master{"sweep", 3, "master", 0};
  liveness.SilentFor(master, kStart);
  liveness.Heard(master, kStart + absl::Seconds(25));
  EXPECT_EQ(liveness.SilentFor(master, kStart + absl::Seconds(30)), absl::Seconds(5));
  // A late-arriving older contact does not move the clock back.
  liveness.Heard(master, kStart + absl::Seconds(10));
  EXPECT_EQ(liveness.SilentFor(master, kStart + absl::Seconds(30)), absl::Seconds(5));
}

TEST(AgentLivenessTest, LastHeardStartsNoClock) {
  AgentLiveness liveness;
  const AgentLiveness::Replica master{"sweep", 3, "master", 0};
  EXPECT_EQ(liveness.LastHeard(master), std::nullopt);
  // Asking started nothing: the first check still starts the clock.
  EXPECT_EQ(liveness.SilentFor(master, kStart), absl::ZeroDuration());
  liveness.Heard(master, kStart + absl::Seconds(25));
  EXPECT_EQ(liveness.LastHeard(master), kStart + absl::Seconds(25));
  liveness.Forget(master);
  EXPECT_EQ(liveness.LastHeard(master), std::nullopt);
}

TEST(AgentLivenessTest, ReplicasAreToldApart) {
  AgentLiveness liveness;
  const AgentLiveness::Replica master{"sweep", 3, "master", 0};
  const AgentLiveness::Replica worker{"sweep", 3, "worker", 0};
  const AgentLiveness::Replica other_trial{"sweep", 4, "master", 0};
  liveness.SilentFor(master, kStart);
  liveness.SilentFor(worker, kStart);
  liveness.SilentFor(other_trial, kStart);
  liveness.Heard(worker, kStart + absl::Seconds(50));
  EXPECT_EQ(liveness.SilentFor(master, kStart + absl::Seconds(60)), absl::Seconds(60));
  EXPECT_EQ(liveness.SilentFor(worker, kStart + absl::Seconds(60)), absl::Seconds(10));
  EXPECT_EQ(liveness.SilentFor(other_trial, kStart + absl::Seconds(60)), absl::Seconds(60));
}

TEST(AgentLivenessTest, ForgottenReplicasStartAfreshAsAfterARestart) {
  AgentLiveness liveness;
  const AgentLiveness::Replica master{"sweep", 3, "master", 0};
  liveness.SilentFor(master, kStart);
  liveness.Forget(master);
  EXPECT_EQ(liveness.SilentFor(master, kStart + absl::Seconds(90)), absl::ZeroDuration());
}

TEST(AgentLivenessTest, RetainTrialsForgetsEndedTrialsOfOneStudyOnly) {
  AgentLiveness liveness;
  const AgentLiveness::Replica running{"sweep", 3, "master", 0};
  const AgentLiveness::Replica ended{"sweep", 4, "master", 0};
  const AgentLiveness::Replica elsewhere{"other", 4, "master", 0};
  for (const auto& replica : {running, ended, elsewhere}) liveness.SilentFor(replica, kStart);
  liveness.RetainTrials("sweep", {3});
  const absl::Time later = kStart + absl::Seconds(20);
  EXPECT_EQ(liveness.SilentFor(running, later), absl::Seconds(20));
  EXPECT_EQ(liveness.SilentFor(ended, later), absl::ZeroDuration());
  EXPECT_EQ(liveness.SilentFor(elsewhere, later), absl::Seconds(20));
}

}  // namespace
}  // namespace vernier::tuner
