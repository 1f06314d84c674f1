// SuggestTrials with `complete_trial` against a real `vernier serve`, on
// every store: the client's last trial is completed first and its next one
// handed out in one call; a retry of that call changes nothing; a completion
// that fails suggests nothing and says why, naming complete_trial.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "tests/support/served_study_test.h"
#include "tests/support/store_test.h"
#include "tests/support/study_client.h"

namespace vernier::testing {
namespace {

using ::testing::HasSubstr;

constexpr char kLoopedStudy[] = "looped";
constexpr char kLoopedMetric[] = "loss";

class SuggestAndCompleteTest : public ServedStudyTest {
 protected:
  void SetUp() override {
    StoreTest::SetUp();
    if (IsSkipped()) return;
    ServeStudy(kLoopedStudy, kLoopedMetric);
    if (HasFatalFailure()) return;
  }

  grpc::Status Suggest(const v1::SuggestTrialsRequest& request,
                       v1::SuggestTrialsResponse* response) {
    grpc::ClientContext context;
    return server_->StudyStub()->SuggestTrials(&context, request, response);
  }

  static v1::SuggestTrialsRequest Completing(int64_t trial_id) {
    v1::SuggestTrialsRequest request;
    request.set_study_name(kLoopedStudy);
    request.set_count(1);
    request.set_client_id("loop");
    request.mutable_complete_trial()->set_trial_id(trial_id);
    return request;
  }

  int TrialCount() {
    std::vector<v1::Trial> trials;
    EXPECT_TRUE(client_->ListTrials(kLoopedStudy, false, &trials).ok());
    return static_cast<int>(trials.size());
  }
};

TEST_P(SuggestAndCompleteTest, ASuggestionCompletesTheClientsLastTrialFirst) {
  v1::SuggestTrialsResponse first;
  ASSERT_TRUE(client_->Suggest(kLoopedStudy, 1, "loop", &first).ok());
  ASSERT_EQ(first.trials_size(), 1);
  const int64_t done_id = first.trials(0).id();
  ASSERT_TRUE(
      client_->AddMeasurement(kLoopedStudy, done_id, MakeMeasurement(1, 1, kLoopedMetric, 0.25))
          .ok());

  v1::SuggestTrialsResponse next;
  grpc::Status status = Suggest(Completing(done_id), &next);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(next.completed_trial().id(), done_id);
  EXPECT_EQ(next.completed_trial().state(), v1::Trial::SUCCEEDED);
  EXPECT_EQ(next.completed_trial().final_measurement().metrics(0).value(), 0.25);
  ASSERT_EQ(next.trials_size(), 1);
  const int64_t next_id = next.trials(0).id();
  EXPECT_NE(next_id, done_id);
  EXPECT_EQ(next.trials(0).state(), v1::Trial::ACTIVE);

  // The same call again (an answer lost on the way): the completion is a
  // no-op and the client's active trial comes back, not a new one.
  v1::SuggestTrialsResponse again;
  status = Suggest(Completing(done_id), &again);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(again.completed_trial().state(), v1::Trial::SUCCEEDED);
  ASSERT_EQ(again.trials_size(), 1);
  EXPECT_EQ(again.trials(0).id(), next_id);
  EXPECT_EQ(TrialCount(), 2);

  // INFEASIBLE rides the same way.
  v1::SuggestTrialsRequest infeasible = Completing(next_id);
  infeasible.mutable_complete_trial()->set_trial_infeasible(true);
  infeasible.mutable_complete_trial()->set_infeasible_reason("diverged");
  v1::SuggestTrialsResponse third;
  status = Suggest(infeasible, &third);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(third.completed_trial().state(), v1::Trial::INFEASIBLE);
  EXPECT_EQ(third.completed_trial().status_reason(), "diverged");
  ASSERT_EQ(third.trials_size(), 1);
  EXPECT_NE(third.trials(0).id(), next_id);
}

TEST_P(SuggestAndCompleteTest, ACompletionThatFailsSuggestsNothingAndSaysWhy) {
  v1::SuggestTrialsResponse first;
  ASSERT_TRUE(client_->Suggest(kLoopedStudy, 1, "loop", &first).ok());
  ASSERT_EQ(first.trials_size(), 1);
  const int64_t trial_id = first.trials(0).id();

  v1::SuggestTrialsResponse response;
  v1::SuggestTrialsRequest other_study = Completing(trial_id);
  other_study.mutable_complete_trial()->set_study_name("elsewhere");
  grpc::Status status = Suggest(other_study, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(),
              HasSubstr("complete_trial.study_name \"elsewhere\" is not the study"));

  status = Suggest(Completing(-3), &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("complete_trial (nothing was suggested)"));
  EXPECT_THAT(status.error_message(), HasSubstr("trial_id -3 is not a trial id"));

  status = Suggest(Completing(trial_id + 50), &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_THAT(status.error_message(), HasSubstr("complete_trial"));
  EXPECT_THAT(status.error_message(), HasSubstr(absl::StrFormat("%d", trial_id + 50)));

  // Nothing reported and no final measurement: nothing to complete with.
  status = Suggest(Completing(trial_id), &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(status.error_message(), HasSubstr("complete_trial"));

  v1::SuggestTrialsRequest not_finite = Completing(trial_id);
  *not_finite.mutable_complete_trial()->mutable_final_measurement() =
      MakeMeasurement(1, 0, kLoopedMetric, std::numeric_limits<double>::quiet_NaN());
  status = Suggest(not_finite, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("final measurement"));

  // None of them suggested or ended anything.
  EXPECT_EQ(TrialCount(), 1);
  v1::Trial trial;
  ASSERT_TRUE(client_->GetTrial(kLoopedStudy, trial_id, &trial).ok());
  EXPECT_EQ(trial.state(), v1::Trial::ACTIVE);
}

VERNIER_INSTANTIATE_FOR_EVERY_STORE(SuggestAndCompleteTest);

}  // namespace
}  // namespace vernier::testing
