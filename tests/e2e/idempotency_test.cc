// Retries through gRPC against a real `vernier serve`, on every store: a
// measurement resent with its sequence number is stored once, and a trial
// completed again with the same result stays completed while another result
// is refused.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/support/served_study_test.h"
#include "tests/support/store_test.h"
#include "tests/support/study_client.h"

namespace vernier::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kRetriedStudy[] = "retried";
constexpr char kRetriedMetric[] = "score";

class IdempotencyTest : public ServedStudyTest {
 protected:
  void SetUp() override {
    StoreTest::SetUp();
    if (IsSkipped()) return;
    ServeStudy(kRetriedStudy, kRetriedMetric);
    if (HasFatalFailure()) return;
    v1::SuggestTrialsResponse suggested;
    ASSERT_TRUE(client_->Suggest(kRetriedStudy, 1, "agent", &suggested).ok());
    ASSERT_EQ(suggested.trials_size(), 1);
    trial_id_ = suggested.trials(0).id();
  }

  // The trial as stored, with its measurements.
  v1::Trial Stored() {
    std::vector<v1::Trial> trials;
    grpc::Status status = client_->ListTrials(kRetriedStudy, true, &trials);
    EXPECT_TRUE(status.ok()) << status.error_message();
    for (const v1::Trial& trial : trials) {
      if (trial.id() == trial_id_) return trial;
    }
    ADD_FAILURE() << "trial " << trial_id_ << " is gone";
    return {};
  }

  std::vector<int64_t> StoredSteps() {
    std::vector<int64_t> steps;
    const v1::Trial trial = Stored();
    for (const v1::Measurement& measurement : trial.measurements()) {
      steps.push_back(measurement.step());
    }
    return steps;
  }

  // Restarts the server on the same database and port.
  void Restart() {
    const int port = server_->port();
    client_.reset();
    server_->Stop();
    server_ = MakeServer("restarted", port);
    server_->Start();
    client_ = std::make_unique<StudyClient>(server_->address());
  }

  int64_t trial_id_ = 0;
};

TEST_P(IdempotencyTest, AMeasurementResentWithItsSequenceNumberIsStoredOnce) {
  v1::Trial trial;
  ASSERT_TRUE(
      client_->AddMeasurement(kRetriedStudy, trial_id_, MakeMeasurement(1, 1, kRetriedMetric, 0.1))
          .ok());
  // The agent timed out waiting for the answer and sends it again.
  ASSERT_TRUE(client_
                  ->AddMeasurement(kRetriedStudy, trial_id_,
                                   MakeMeasurement(1, 1, kRetriedMetric, 0.1), &trial)
                  .ok());
  EXPECT_EQ(trial.measurement_count(), 1);
  ASSERT_TRUE(
      client_->AddMeasurement(kRetriedStudy, trial_id_, MakeMeasurement(2, 2, kRetriedMetric, 0.2))
          .ok());
  // A late retry of an older one, and one whose value changed on the way:
  // the first stored copy stands.
  ASSERT_TRUE(
      client_->AddMeasurement(kRetriedStudy, trial_id_, MakeMeasurement(1, 1, kRetriedMetric, 0.1))
          .ok());
  ASSERT_TRUE(client_
                  ->AddMeasurement(kRetriedStudy, trial_id_,
                                   MakeMeasurement(2, 2, kRetriedMetric, 0.9), &trial)
                  .ok());
  EXPECT_EQ(trial.measurement_count(), 2);
  EXPECT_EQ(trial.latest_measurement().sequence_number(), 2);
  EXPECT_EQ(trial.latest_measurement().metrics(0).value(), 0.2);
  EXPECT_THAT(StoredSteps(), ElementsAre(1, 2));

  // Retries that reach a restarted server are still recognised.
  Restart();
  ASSERT_TRUE(
      client_->AddMeasurement(kRetriedStudy, trial_id_, MakeMeasurement(2, 2, kRetriedMetric, 0.2))
          .ok());
  ASSERT_TRUE(client_
                  ->AddMeasurement(kRetriedStudy, trial_id_,
                                   MakeMeasurement(3, 3, kRetriedMetric, 0.3), &trial)
                  .ok());
  EXPECT_EQ(trial.measurement_count(), 3);
  EXPECT_THAT(StoredSteps(), ElementsAre(1, 2, 3));
  const v1::Trial stored = Stored();
  EXPECT_EQ(stored.measurements(1).metrics(0).value(), 0.2);
  EXPECT_EQ(stored.measurement_count(), 3);
}

TEST_P(IdempotencyTest, MeasurementsWithoutSequenceNumbersAreEachStored) {
  ASSERT_TRUE(
      client_->AddMeasurement(kRetriedStudy, trial_id_, MakeMeasurement(5, 0, kRetriedMetric, 0.5))
          .ok());
  ASSERT_TRUE(
      client_->AddMeasurement(kRetriedStudy, trial_id_, MakeMeasurement(5, 0, kRetriedMetric, 0.5))
          .ok());
  EXPECT_THAT(StoredSteps(), ElementsAre(5, 5));
}

TEST_P(IdempotencyTest, CompletingAgainWithTheSameResultSucceedsAndWithAnotherFails) {
  const v1::Measurement final = MakeMeasurement(3, 0, kRetriedMetric, 0.75);
  v1::Trial first, again;
  ASSERT_TRUE(client_->Complete(kRetriedStudy, trial_id_, &final, &first).ok());
  EXPECT_EQ(first.state(), v1::Trial::SUCCEEDED);
  grpc::Status repeated = client_->Complete(kRetriedStudy, trial_id_, &final, &again);
  ASSERT_TRUE(repeated.ok()) << repeated.error_message();
  EXPECT_EQ(again.state(), v1::Trial::SUCCEEDED);
  EXPECT_EQ(again.end_time().SerializeAsString(), first.end_time().SerializeAsString());

  const v1::Measurement other = MakeMeasurement(3, 0, kRetriedMetric, 0.25);
  grpc::Status conflicting = client_->Complete(kRetriedStudy, trial_id_, &other);
  EXPECT_EQ(conflicting.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(conflicting.error_message(),
              HasSubstr("already completed with another final measurement"));
  EXPECT_EQ(Stored().final_measurement().metrics(0).value(), 0.75);

  grpc::Status late =
      client_->AddMeasurement(kRetriedStudy, trial_id_, MakeMeasurement(4, 4, kRetriedMetric, 1));
  EXPECT_EQ(late.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(late.error_message(), HasSubstr("is SUCCEEDED"));

  // The same retry after a restart is still recognised as the same.
  Restart();
  EXPECT_TRUE(client_->Complete(kRetriedStudy, trial_id_, &final).ok());
  EXPECT_EQ(client_->Complete(kRetriedStudy, trial_id_, &other).error_code(),
            grpc::StatusCode::FAILED_PRECONDITION);
}

TEST_P(IdempotencyTest, CompletingAgainFromTheLatestMeasurementSucceeds) {
  ASSERT_TRUE(
      client_->AddMeasurement(kRetriedStudy, trial_id_, MakeMeasurement(1, 1, kRetriedMetric, 0.4))
          .ok());
  v1::Trial first, again;
  ASSERT_TRUE(client_->Complete(kRetriedStudy, trial_id_, nullptr, &first).ok());
  ASSERT_TRUE(client_->Complete(kRetriedStudy, trial_id_, nullptr, &again).ok());
  EXPECT_EQ(again.final_measurement().SerializeAsString(),
            first.final_measurement().SerializeAsString());
  EXPECT_EQ(again.final_measurement().metrics(0).value(), 0.4);
}

VERNIER_INSTANTIATE_FOR_EVERY_STORE(IdempotencyTest);

}  // namespace
}  // namespace vernier::testing
