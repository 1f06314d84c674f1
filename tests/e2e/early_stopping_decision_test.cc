// CheckEarlyStopping against a real `vernier serve`, on every store: the
// server keeps a study's curves between calls and reads only what was
// written since (ObjectiveCurveCache), so a decision must still see every
// report made before it, the trial's own and the others', whichever server
// of those sharing a PostgreSQL database took them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "tests/support/server_process.h"
#include "tests/support/store_test.h"
#include "tests/support/study_client.h"

namespace vernier::testing {
namespace {

using ::testing::HasSubstr;

constexpr char kStudy[] = "stopping";
constexpr char kMetric[] = "accuracy";

class EarlyStoppingDecisionTest : public StoreTest {
 protected:
  void SetUp() override {
    StoreTest::SetUp();
    if (IsSkipped()) return;
    server_ = MakeServer("first");
    server_->Start();
    client_ = std::make_unique<StudyClient>(server_->address());
    // Median stopping after 2 completed trials, maximizing accuracy.
    v1::Study study = SimpleStudy(kStudy, kMetric, 0, 0);
    v1::EarlyStoppingSpec& stopping = *study.mutable_spec()->mutable_early_stopping();
    stopping.set_enabled(true);
    stopping.set_policy(v1::EarlyStoppingSpec::MEDIAN_STOPPING);
    stopping.set_min_trials(2);
    const grpc::Status created = client_->CreateStudy(study);
    ASSERT_TRUE(created.ok()) << created.error_message();
  }

  // A new trial, through `client`.
  static int64_t NewTrial(StudyClient& client) {
    v1::SuggestTrialsResponse response;
    const grpc::Status status = client.Suggest(kStudy, 1, "", &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    EXPECT_EQ(response.trials_size(), 1);
    return response.trials_size() == 1 ? response.trials(0).id() : 0;
  }

  static void Report(StudyClient& client, int64_t trial_id, int64_t step, double value) {
    const grpc::Status status =
        client.AddMeasurement(kStudy, trial_id, MakeMeasurement(step, step, kMetric, value));
    ASSERT_TRUE(status.ok()) << status.error_message();
  }

  grpc::Status Check(int64_t trial_id, v1::CheckEarlyStoppingResponse* response) {
    grpc::ClientContext context;
    v1::CheckEarlyStoppingRequest request;
    request.set_study_name(kStudy);
    request.set_trial_id(trial_id);
    return server_->StudyStub()->CheckEarlyStopping(&context, request, response);
  }

  bool ShouldStop(int64_t trial_id) {
    v1::CheckEarlyStoppingResponse response;
    const grpc::Status status = Check(trial_id, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response.should_stop();
  }

  // Two trials at 0.5, 0.8 and 0.9 for steps 1 to 3, completed: the
  // median rule's running averages to beat are 0.5 at step 1 and 0.65 at
  // step 2 (a trial's best so far is compared).
  void CompleteTwoImproving() {
    for (int i = 0; i < 2; ++i) {
      const int64_t id = NewTrial(*client_);
      Report(*client_, id, 1, 0.5);
      Report(*client_, id, 2, 0.8);
      Report(*client_, id, 3, 0.9);
      const grpc::Status completed = client_->Complete(kStudy, id, nullptr);
      ASSERT_TRUE(completed.ok()) << completed.error_message();
    }
  }

  std::unique_ptr<ServerProcess> server_;
  std::unique_ptr<StudyClient> client_;
};

TEST_P(EarlyStoppingDecisionTest, EveryDecisionSeesTheReportsMadeBeforeIt) {
  CompleteTwoImproving();
  const int64_t good = NewTrial(*client_);
  Report(*client_, good, 1, 0.9);
  EXPECT_FALSE(ShouldStop(good));  // the curves are now kept

  // Reported after the curves were kept: the decision reads it.
  const int64_t bad = NewTrial(*client_);
  Report(*client_, bad, 1, 0.6);
  EXPECT_FALSE(ShouldStop(bad));
  Report(*client_, bad, 2, 0.6);
  v1::CheckEarlyStoppingResponse stopped;
  grpc::Status status = Check(bad, &stopped);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_TRUE(stopped.should_stop());
  EXPECT_FALSE(stopped.reason().empty());
  v1::Trial stored;
  ASSERT_TRUE(client_->GetTrial(kStudy, bad, &stored).ok());
  EXPECT_EQ(stored.state(), v1::Trial::STOPPING);
  EXPECT_EQ(stored.status_reason(), stopped.reason());
  // Asked again: its stored state answers, with the same reason.
  v1::CheckEarlyStoppingResponse again;
  status = Check(bad, &again);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_TRUE(again.should_stop());
  EXPECT_EQ(again.reason(), stopped.reason());

  // A trial that ended since the curves were read last is told so.
  ASSERT_TRUE(client_->Complete(kStudy, good, nullptr).ok());
  v1::CheckEarlyStoppingResponse ended;
  status = Check(good, &ended);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_TRUE(ended.should_stop());
  EXPECT_THAT(ended.reason(), HasSubstr("SUCCEEDED"));

  // A trial the study does not have, or a study that does not exist.
  v1::CheckEarlyStoppingResponse none;
  status = Check(99, &none);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_THAT(status.error_message(), HasSubstr("99"));
  grpc::ClientContext context;
  v1::CheckEarlyStoppingRequest request;
  request.set_study_name("nope");
  request.set_trial_id(1);
  status = server_->StudyStub()->CheckEarlyStopping(&context, request, &none);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_THAT(status.error_message(), HasSubstr("nope"));
}

// Servers sharing a PostgreSQL database: the reports another server took
// are in this server's next decision.
TEST_P(EarlyStoppingDecisionTest, ADecisionSeesTheReportsAnotherServerTook) {
  if (GetParam() != StoreKind::kPostgres) {
    GTEST_SKIP() << "one server at a time on a SQLite database";
  }
  std::unique_ptr<ServerProcess> other = MakeServer("second");
  other->Start();
  StudyClient other_client(other->address());
  CompleteTwoImproving();
  const int64_t trial = NewTrial(other_client);
  Report(other_client, trial, 1, 0.6);
  EXPECT_FALSE(ShouldStop(trial));
  Report(other_client, trial, 2, 0.6);
  EXPECT_TRUE(ShouldStop(trial));
  // And a trial the other server created after this one read the curves.
  const int64_t late = NewTrial(other_client);
  Report(other_client, late, 1, 0.1);
  Report(other_client, late, 2, 0.1);
  EXPECT_TRUE(ShouldStop(late));
}

VERNIER_INSTANTIATE_FOR_EVERY_STORE(EarlyStoppingDecisionTest);

}  // namespace
}  // namespace vernier::testing
