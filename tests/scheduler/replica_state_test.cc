#include "scheduler/replica_state.h"

#include "gtest/gtest.h"

namespace vernier::scheduler {
namespace {

TEST(ReplicaEndedTest, OnlyExitedAndLostReplicasHaveEnded) {
  v1::ReplicaStatus replica;
  for (const v1::ReplicaStatus::State state :
       {v1::ReplicaStatus::EXITED, v1::ReplicaStatus::LOST}) {
    replica.set_state(state);
    EXPECT_TRUE(ReplicaEnded(replica)) << v1::ReplicaStatus::State_Name(state);
  }
  for (const v1::ReplicaStatus::State state :
       {v1::ReplicaStatus::STATE_UNSPECIFIED, v1::ReplicaStatus::PENDING,
        v1::ReplicaStatus::RUNNING}) {
    replica.set_state(state);
    EXPECT_FALSE(ReplicaEnded(replica)) << v1::ReplicaStatus::State_Name(state);
  }
}

}  // namespace
}  // namespace vernier::scheduler
