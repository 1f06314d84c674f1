#ifndef VERNIER_TESTS_TUNER_STORAGE_JOB_COORDINATION_CONFORMANCE_H_
#define VERNIER_TESTS_TUNER_STORAGE_JOB_COORDINATION_CONFORMANCE_H_

// What every store must do for servers sharing it (job_coordination.h and
// ScopedWriteFence), written against the Storage interface with two stores
// over one database, as two servers open it. A store joins with the factory
// of storage_conformance.h:
//
//   INSTANTIATE_TYPED_TEST_SUITE_P(MyStore, JobCoordinationConformanceTest,
//                                  ::testing::Types<MyStoreFactory>);

#include <string>
#include <thread>
#include <vector>

#include "absl/time/clock.h"
#include "tests/tuner/storage/storage_conformance.h"
#include "tuner/storage/scoped_write_fence.h"

namespace vernier::storage::testing {

template <typename Factory>
class JobCoordinationConformanceTest : public StorageConformanceTest<Factory> {
 protected:
  // A RUNNING job "JOB_ID" with its study of the same name.
  void CreateRunningJob(const std::string& job_id) {
    v1::Job job = this->MakeJob(job_id, v1::Job::RUNNING, 1'700'000'000);
    job.set_study_name(job_id);
    ASSERT_THAT(this->store().CreateJob(job, this->MakeStudy(job_id)), IsOk());
  }
  static std::vector<std::string> Ids(const std::vector<JobLease>& leases) {
    std::vector<std::string> ids;
    for (const JobLease& lease : leases) ids.push_back(lease.job_id);
    return ids;
  }
};

TYPED_TEST_SUITE_P(JobCoordinationConformanceTest);

TYPED_TEST_P(JobCoordinationConformanceTest, ALeaseIsOneServersUntilItExpires) {
  const std::vector<std::string> jobs = {"b", "a"};
  absl::StatusOr<std::vector<JobLease>> first =
      this->store().AcquireJobLeases("one", jobs, absl::Seconds(30));
  ASSERT_THAT(first, IsOk());
  EXPECT_THAT(this->Ids(*first), ::testing::ElementsAre("a", "b"));
  // The other server gets none of them, and asking changes nothing.
  absl::StatusOr<std::vector<JobLease>> second =
      this->other_store().AcquireJobLeases("two", jobs, absl::Seconds(30));
  ASSERT_THAT(second, IsOk());
  EXPECT_THAT(*second, ::testing::IsEmpty());
  // Renewing keeps the token.
  absl::StatusOr<std::vector<JobLease>> renewed =
      this->store().AcquireJobLeases("one", jobs, absl::Seconds(30));
  ASSERT_THAT(renewed, IsOk());
  ASSERT_EQ(renewed->size(), 2u);
  EXPECT_EQ((*renewed)[0].token, (*first)[0].token);
  EXPECT_EQ((*renewed)[1].token, (*first)[1].token);
}

TYPED_TEST_P(JobCoordinationConformanceTest, AnExpiredOrReleasedLeaseChangesHandsWithANewToken) {
  const std::vector<std::string> job = {"job"};
  absl::StatusOr<std::vector<JobLease>> first =
      this->store().AcquireJobLeases("one", job, absl::Milliseconds(1));
  ASSERT_THAT(first, IsOk());
  ASSERT_EQ(first->size(), 1u);
  absl::SleepFor(absl::Milliseconds(20));
  absl::StatusOr<std::vector<JobLease>> taken =
      this->other_store().AcquireJobLeases("two", job, absl::Seconds(30));
  ASSERT_THAT(taken, IsOk());
  ASSERT_EQ(taken->size(), 1u);
  EXPECT_EQ((*taken)[0].token, (*first)[0].token + 1);
  // The first server cannot take it back while it lasts.
  absl::StatusOr<std::vector<JobLease>> again =
      this->store().AcquireJobLeases("one", job, absl::Seconds(30));
  ASSERT_THAT(again, IsOk());
  EXPECT_THAT(*again, ::testing::IsEmpty());
  // Released by its holder (a release by another server does nothing), it
  // goes at once.
  ASSERT_THAT(this->store().ReleaseJobLeases("one", job), IsOk());
  ASSERT_THAT(this->store().AcquireJobLeases("one", job, absl::Seconds(30)),
              IsOkAndHolds(::testing::IsEmpty()));
  ASSERT_THAT(this->other_store().ReleaseJobLeases("two", job), IsOk());
  absl::StatusOr<std::vector<JobLease>> back =
      this->store().AcquireJobLeases("one", job, absl::Seconds(30));
  ASSERT_THAT(back, IsOk());
  ASSERT_EQ(back->size(), 1u);
  EXPECT_EQ((*back)[0].token, (*first)[0].token + 2);
}

TYPED_TEST_P(JobCoordinationConformanceTest, AFencedWriteGoesInOnlyUnderTheCurrentLease) {
  this->CreateRunningJob("fenced");
  const std::vector<std::string> job = {"fenced"};
  absl::StatusOr<std::vector<JobLease>> lease =
      this->store().AcquireJobLeases("one", job, absl::Milliseconds(1));
  ASSERT_THAT(lease, IsOk());
  ASSERT_EQ(lease->size(), 1u);
  const WriteFence old_fence{"fenced", "one", (*lease)[0].token};
  {
    ScopedWriteFence fenced(old_fence);
    ASSERT_THAT(this->store().UpdateJob("fenced",
                                        [](v1::Job& stored) {
                                          stored.set_error_message("by one");
                                          return absl::OkStatus();
                                        }),
                IsOk());
  }
  absl::SleepFor(absl::Milliseconds(20));
  ASSERT_THAT(this->other_store().AcquireJobLeases("two", job, absl::Seconds(30)),
              IsOkAndHolds(::testing::SizeIs(1)));
  {
    // The server that lost the lease changes nothing more: not the job, its
    // runs, its study or its trials.
    ScopedWriteFence fenced(old_fence);
    EXPECT_THAT(this->store().UpdateJob("fenced",
                                        [](v1::Job& stored) {
                                          stored.set_error_message("late");
                                          return absl::OkStatus();
                                        }),
                StatusIs(absl::StatusCode::kAborted,
                         ::testing::AllOf(::testing::HasSubstr("\"fenced\""),
                                          ::testing::HasSubstr("server two"))));
    v1::TrialRun run;
    run.set_trial_id(1);
    EXPECT_THAT(this->store().PutTrialRun("fenced", run),
                StatusIs(absl::StatusCode::kAborted, ::testing::_));
    std::vector<v1::Trial> trials = {this->MakeTrial(v1::Trial::ACTIVE)};
    EXPECT_THAT(this->store().CreateTrials("fenced", trials),
                StatusIs(absl::StatusCode::kAborted, ::testing::_));
  }
  absl::StatusOr<v1::Job> stored = this->store().GetJob("fenced");
  ASSERT_THAT(stored, IsOk());
  EXPECT_EQ(stored->error_message(), "by one");
  EXPECT_THAT(this->store().ListTrialRuns("fenced"), IsOkAndHolds(::testing::IsEmpty()));
  // Reads and unfenced writes are not affected.
  EXPECT_THAT(this->store().ListTrials("fenced", {}), IsOk());
}

TYPED_TEST_P(JobCoordinationConformanceTest, ServersAgentContactsAndKeptExitReportsAreShared) {
  ASSERT_THAT(this->store().RecordServer("b-server", "10.0.0.2:7730", absl::Seconds(30)), IsOk());
  ASSERT_THAT(this->other_store().RecordServer("a-server", "10.0.0.1:7730", absl::Seconds(30)),
              IsOk());
  ASSERT_THAT(this->store().RecordServer("gone", "10.0.0.3:7730", absl::Milliseconds(1)), IsOk());
  absl::SleepFor(absl::Milliseconds(20));
  EXPECT_THAT(this->other_store().ListLiveServerAddresses(),
              IsOkAndHolds(::testing::ElementsAre("10.0.0.1:7730", "10.0.0.2:7730")));

  EXPECT_THAT(this->store().AgentContactAge("job", 1, "master-0"),
              IsOkAndHolds(::testing::Eq(std::nullopt)));
  ASSERT_THAT(this->other_store().RecordAgentContact("job", 1, "master-0"), IsOk());
  absl::StatusOr<std::optional<absl::Duration>> age =
      this->store().AgentContactAge("job", 1, "master-0");
  ASSERT_THAT(age, IsOk());
  ASSERT_TRUE(age->has_value());
  EXPECT_LT(**age, absl::Minutes(1));

  v1::ReportExitRequest first;
  first.mutable_replica()->set_study_name("job");
  first.mutable_replica()->set_trial_id(1);
  first.mutable_replica()->set_role("master");
  first.set_exit_code(3);
  first.set_log_tail("boom");
  v1::ReportExitRequest second = first;
  second.mutable_replica()->set_role("worker");
  ASSERT_THAT(this->other_store().QueueReplicaExit("job", first), IsOk());
  ASSERT_THAT(this->other_store().QueueReplicaExit("job", second), IsOk());
  ASSERT_THAT(this->other_store().QueueReplicaExit("another", second), IsOk());
  absl::StatusOr<std::vector<v1::ReportExitRequest>> taken = this->store().TakeReplicaExits("job");
  ASSERT_THAT(taken, IsOk());
  ASSERT_EQ(taken->size(), 2u);
  EXPECT_EQ((*taken)[0].replica().role(), "master");
  EXPECT_EQ((*taken)[0].log_tail(), "boom");
  EXPECT_EQ((*taken)[1].replica().role(), "worker");
  // Taken once.
  EXPECT_THAT(this->store().TakeReplicaExits("job"), IsOkAndHolds(::testing::IsEmpty()));
  EXPECT_THAT(this->store().TakeReplicaExits("another"), IsOkAndHolds(::testing::SizeIs(1)));
}

REGISTER_TYPED_TEST_SUITE_P(JobCoordinationConformanceTest, ALeaseIsOneServersUntilItExpires,
                            AnExpiredOrReleasedLeaseChangesHandsWithANewToken,
                            AFencedWriteGoesInOnlyUnderTheCurrentLease,
                            ServersAgentContactsAndKeptExitReportsAreShared);

}  // namespace vernier::storage::testing

#endif  // VERNIER_TESTS_TUNER_STORAGE_JOB_COORDINATION_CONFORMANCE_H_
