// AddMeasurement through gRPC against a real `vernier serve`, on every store:
// each refusal carries its own status code and names what is wrong, and
// many agents reporting at once each get their own trial back. The handler
// answers from the store's callback (group commit on PostgreSQL), so these
// cover the path that answers later, not only the one that answers at once.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <limits>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "pqxx/connection"
#include "pqxx/transaction"
#include "tests/support/served_study_test.h"
#include "tests/support/store_test.h"
#include "tests/support/study_client.h"

namespace vernier::testing {
namespace {

using ::testing::HasSubstr;

constexpr char kReportedStudy[] = "reported";
constexpr char kReportedMetric[] = "loss";

class AddMeasurementTest : public ServedStudyTest {
 protected:
  void SetUp() override {
    StoreTest::SetUp();
    if (IsSkipped()) return;
    ServeStudy(kReportedStudy, kReportedMetric);
    if (HasFatalFailure()) return;
  }

  int64_t SuggestOne(const std::string& client_id) {
    v1::SuggestTrialsResponse suggested;
    grpc::Status status = client_->Suggest(kReportedStudy, 1, client_id, &suggested);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return suggested.trials_size() == 1 ? suggested.trials(0).id() : 0;
  }
};

TEST_P(AddMeasurementTest, EachRefusalHasItsCodeAndSaysWhatIsWrong) {
  const int64_t trial_id = SuggestOne("agent");
  ASSERT_GT(trial_id, 0);
  const v1::Measurement good = MakeMeasurement(1, 1, kReportedMetric, 0.5);

  grpc::Status no_trial_id = client_->AddMeasurement(kReportedStudy, 0, good);
  EXPECT_EQ(no_trial_id.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(no_trial_id.error_message(), HasSubstr("trial_id 0 is not a trial id"));

  grpc::Status no_study = client_->AddMeasurement("", trial_id, good);
  EXPECT_EQ(no_study.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(no_study.error_message(), HasSubstr("study_name is required"));

  v1::Measurement not_finite = MakeMeasurement(2, 2, kReportedMetric, 0);
  not_finite.mutable_metrics(0)->set_value(std::numeric_limits<double>::quiet_NaN());
  grpc::Status invalid = client_->AddMeasurement(kReportedStudy, trial_id, not_finite);
  EXPECT_EQ(invalid.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(invalid.error_message(), HasSubstr("values must be finite"));
  EXPECT_THAT(invalid.error_message(), HasSubstr("measurement at step 2"));

  {
    grpc::ClientContext context;
    v1::AddMeasurementRequest request;
    request.set_study_name(kReportedStudy);
    request.set_trial_id(trial_id);
    v1::Trial trial;
    grpc::Status no_measurement = server_->StudyStub()->AddMeasurement(&context, request, &trial);
    EXPECT_EQ(no_measurement.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_THAT(no_measurement.error_message(), HasSubstr("measurement is required"));
  }

  grpc::Status unknown_trial = client_->AddMeasurement(kReportedStudy, trial_id + 100, good);
  EXPECT_EQ(unknown_trial.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_THAT(unknown_trial.error_message(), HasSubstr(absl::StrFormat("%d", trial_id + 100)));

  grpc::Status unknown_study = client_->AddMeasurement("no-such-study", trial_id, good);
  EXPECT_EQ(unknown_study.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_THAT(unknown_study.error_message(), HasSubstr("no-such-study"));

  // Nothing refused was stored; the good measurement still goes in.
  v1::Trial trial;
  grpc::Status added = client_->AddMeasurement(kReportedStudy, trial_id, good, &trial);
  ASSERT_TRUE(added.ok()) << added.error_message();
  EXPECT_EQ(trial.id(), trial_id);
  EXPECT_EQ(trial.measurement_count(), 1);
}

// Agents reporting at once, many measurements each: every call is answered
// with its own trial and count, and every measurement is stored once.
TEST_P(AddMeasurementTest, ConcurrentReportsEachGetTheirOwnTrialBack) {
  constexpr int kAgents = 12;
  constexpr int kMeasurements = 15;
  std::vector<int64_t> trial_ids;
  for (int agent = 0; agent < kAgents; ++agent) {
    trial_ids.push_back(SuggestOne(absl::StrFormat("agent-%d", agent)));
    ASSERT_GT(trial_ids.back(), 0);
  }
  std::atomic<int> wrong = 0;
  std::vector<std::thread> agents;
  for (int agent = 0; agent < kAgents; ++agent) {
    agents.emplace_back([&, agent] {
      StudyClient client(server_->address());
      for (int step = 1; step <= kMeasurements; ++step) {
        v1::Trial trial;
        grpc::Status status = client.AddMeasurement(
            kReportedStudy, trial_ids[agent],
            MakeMeasurement(step, step, kReportedMetric, agent + step / 100.0), &trial);
        if (!status.ok() || trial.id() != trial_ids[agent] || trial.measurement_count() != step ||
            trial.latest_measurement().step() != step) {
          ADD_FAILURE() << "agent " << agent << " step " << step << ": " << status.error_message()
                        << " trial " << trial.id() << " count " << trial.measurement_count();
          ++wrong;
        }
      }
    });
  }
  for (std::thread& agent : agents) agent.join();
  EXPECT_EQ(wrong.load(), 0);

  std::vector<v1::Trial> stored;
  ASSERT_TRUE(client_->ListTrials(kReportedStudy, true, &stored).ok());
  std::map<int64_t, int> measurements_of;
  for (const v1::Trial& trial : stored) measurements_of[trial.id()] = trial.measurements_size();
  for (int64_t trial_id : trial_ids)
    EXPECT_EQ(measurements_of[trial_id], kMeasurements) << trial_id;
}

// A request of several measurements (`measurements`): stored in order in
// one call; a retried batch, or one that overlaps what is stored, stores
// each sequence number once; a batch without sequence numbers (a notebook's)
// is appended as it is.
TEST_P(AddMeasurementTest, ABatchIsStoredInOrderAndARetriedBatchStoresNothingTwice) {
  const int64_t trial_id = SuggestOne("batching");
  ASSERT_GT(trial_id, 0);
  const auto send = [&](std::vector<std::pair<int64_t, int64_t>> steps_and_sequences,
                        v1::Trial* trial) {
    grpc::ClientContext context;
    v1::AddMeasurementRequest request;
    request.set_study_name(kReportedStudy);
    request.set_trial_id(trial_id);
    for (const auto& [step, sequence] : steps_and_sequences) {
      *request.add_measurements() = MakeMeasurement(step, sequence, kReportedMetric, step / 10.0);
    }
    return server_->StudyStub()->AddMeasurement(&context, request, trial);
  };
  v1::Trial trial;
  grpc::Status first = send({{1, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 5}}, &trial);
  ASSERT_TRUE(first.ok()) << first.error_message();
  EXPECT_EQ(trial.id(), trial_id);
  EXPECT_EQ(trial.measurement_count(), 5);
  EXPECT_EQ(trial.latest_measurement().step(), 5);

  grpc::Status retried = send({{1, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 5}}, &trial);
  ASSERT_TRUE(retried.ok()) << retried.error_message();
  EXPECT_EQ(trial.measurement_count(), 5);

  grpc::Status overlapping = send({{5, 5}, {6, 6}, {7, 7}}, &trial);
  ASSERT_TRUE(overlapping.ok()) << overlapping.error_message();
  EXPECT_EQ(trial.measurement_count(), 7);
  EXPECT_EQ(trial.latest_measurement().step(), 7);

  grpc::Status unnumbered = send({{8, 0}, {9, 0}}, &trial);
  ASSERT_TRUE(unnumbered.ok()) << unnumbered.error_message();
  EXPECT_EQ(trial.measurement_count(), 9);

  std::vector<v1::Trial> stored;
  ASSERT_TRUE(client_->ListTrials(kReportedStudy, true, &stored).ok());
  ASSERT_EQ(stored.size(), 1u);
  std::vector<int64_t> steps;
  for (const v1::Measurement& measurement : stored[0].measurements()) {
    steps.push_back(measurement.step());
  }
  EXPECT_EQ(steps, (std::vector<int64_t>{1, 2, 3, 4, 5, 6, 7, 8, 9}));
}

// Each refusal of a batch names what is wrong, and stores none of it.
TEST_P(AddMeasurementTest, ABatchRefusedForAnyOfItsMeasurementsStoresNoneOfThem) {
  const int64_t trial_id = SuggestOne("batching");
  ASSERT_GT(trial_id, 0);
  const auto send = [&](const v1::AddMeasurementRequest& request) {
    grpc::ClientContext context;
    v1::Trial trial;
    return server_->StudyStub()->AddMeasurement(&context, request, &trial);
  };
  v1::AddMeasurementRequest request;
  request.set_study_name(kReportedStudy);
  request.set_trial_id(trial_id);
  for (int step = 1; step <= 3; ++step) {
    *request.add_measurements() = MakeMeasurement(step, step, kReportedMetric, 0.5);
  }

  v1::AddMeasurementRequest both = request;
  *both.mutable_measurement() = MakeMeasurement(4, 4, kReportedMetric, 0.5);
  grpc::Status both_fields = send(both);
  EXPECT_EQ(both_fields.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(both_fields.error_message(), HasSubstr("measurement or measurements, not both"));

  v1::AddMeasurementRequest too_many = request;
  too_many.clear_measurements();
  for (int step = 1; step <= 1001; ++step) {
    *too_many.add_measurements() = MakeMeasurement(step, step, kReportedMetric, 0.5);
  }
  grpc::Status over_limit = send(too_many);
  EXPECT_EQ(over_limit.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(over_limit.error_message(), HasSubstr("measurements holds 1001; at most 1000"));

  v1::AddMeasurementRequest not_finite = request;
  not_finite.mutable_measurements(2)->mutable_metrics(0)->set_value(
      std::numeric_limits<double>::infinity());
  grpc::Status invalid = send(not_finite);
  EXPECT_EQ(invalid.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(invalid.error_message(), HasSubstr("measurement at step 3"));

  v1::AddMeasurementRequest unknown = request;
  unknown.set_trial_id(trial_id + 100);
  grpc::Status missing = send(unknown);
  EXPECT_EQ(missing.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_THAT(missing.error_message(), HasSubstr(absl::StrFormat("%d", trial_id + 100)));

  v1::Trial trial;
  ASSERT_TRUE(client_->GetTrial(kReportedStudy, trial_id, &trial).ok());
  EXPECT_EQ(trial.measurement_count(), 0);

  // An ended trial takes no batch.
  const v1::Measurement final_measurement = MakeMeasurement(1, 0, kReportedMetric, 0.9);
  ASSERT_TRUE(client_->Complete(kReportedStudy, trial_id, &final_measurement).ok());
  grpc::Status ended = send(request);
  EXPECT_EQ(ended.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  ASSERT_TRUE(client_->GetTrial(kReportedStudy, trial_id, &trial).ok());
  EXPECT_EQ(trial.measurement_count(), 0);

  // The same batch goes in whole on a running trial.
  const int64_t running = SuggestOne("batching-2");
  request.set_trial_id(running);
  grpc::Status stored = send(request);
  ASSERT_TRUE(stored.ok()) << stored.error_message();
  ASSERT_TRUE(client_->GetTrial(kReportedStudy, running, &trial).ok());
  EXPECT_EQ(trial.measurement_count(), 3);
}

VERNIER_INSTANTIATE_FOR_EVERY_STORE(AddMeasurementTest);

// PostgreSQL only: there a write waits on one trial's row lock and nothing
// else, where SQLite's write lock stops every writer, group commit included.
using WaitingWriteTest = AddMeasurementTest;

// A measurement without a sequence number (what the Python client's
// trial.report sends) is written outside group commit, and that write may
// wait: here on a trial row another session holds. The reports that wait
// must hold no gRPC thread, so agents reporting on other trials are
// answered meanwhile; the waiting ones are stored, once each, when the row
// is free.
TEST_P(WaitingWriteTest, ReportsWaitingOnARowDoNotHoldUpOtherTrials) {
  const int64_t locked_trial = SuggestOne("notebook");
  const int64_t other_trial = SuggestOne("agent");
  ASSERT_GT(locked_trial, 0);
  ASSERT_GT(other_trial, 0);

  pqxx::connection holder(database_->url());
  auto hold = std::make_unique<pqxx::work>(holder);
  hold->exec(absl::StrFormat("SELECT id FROM trials WHERE study_name = '%s' AND id = %d FOR UPDATE",
                             kReportedStudy, locked_trial));

  // More waiting reports than gRPC has threads for callback handlers.
  constexpr int kWaiting = 8;
  std::atomic<int> waiting_stored = 0;
  std::vector<std::thread> notebooks;
  for (int i = 0; i < kWaiting; ++i) {
    notebooks.emplace_back([&, i] {
      StudyClient client(server_->address(), std::chrono::seconds(60));
      grpc::Status status =
          client.AddMeasurement(kReportedStudy, locked_trial,
                                MakeMeasurement(i + 1, /*sequence_number=*/0, kReportedMetric, i));
      if (status.ok()) {
        ++waiting_stored;
      } else {
        ADD_FAILURE() << "report " << i << ": " << status.error_message();
      }
    });
  }
  // Until some of them wait on the lock in PostgreSQL (the rest may queue
  // in the server), and a little longer for the others to arrive.
  const std::string waiting_sessions =
      "SELECT count(*) FROM pg_stat_activity "
      "WHERE datname = current_database() AND wait_event_type = 'Lock'";
  const absl::Time give_up = absl::Now() + absl::Seconds(30);
  while (database_->postgres()->QueryValue(waiting_sessions).value_or("0") == "0" &&
         absl::Now() < give_up) {
    absl::SleepFor(absl::Milliseconds(20));
  }
  absl::SleepFor(absl::Milliseconds(300));
  EXPECT_EQ(waiting_stored.load(), 0) << "the row lock did not hold the reports";

  v1::Trial other;
  grpc::Status agent_report = client_->AddMeasurement(
      kReportedStudy, other_trial, MakeMeasurement(1, /*sequence_number=*/1, kReportedMetric, 0.5),
      &other);
  EXPECT_TRUE(agent_report.ok()) << agent_report.error_message();
  EXPECT_EQ(other.measurement_count(), 1);
  // Another report without a sequence number, to a trial nobody locks.
  grpc::Status notebook_report = client_->AddMeasurement(
      kReportedStudy, other_trial, MakeMeasurement(2, /*sequence_number=*/0, kReportedMetric, 0.6),
      &other);
  EXPECT_TRUE(notebook_report.ok()) << notebook_report.error_message();
  EXPECT_EQ(other.measurement_count(), 2);

  hold->abort();
  hold.reset();
  for (std::thread& notebook : notebooks) notebook.join();
  EXPECT_EQ(waiting_stored.load(), kWaiting);
  std::vector<v1::Trial> stored;
  ASSERT_TRUE(client_->ListTrials(kReportedStudy, true, &stored).ok());
  for (const v1::Trial& trial : stored) {
    if (trial.id() == locked_trial) {
      EXPECT_EQ(trial.measurements_size(), kWaiting);
    } else if (trial.id() == other_trial) {
      EXPECT_EQ(trial.measurements_size(), 2);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Stores, WaitingWriteTest,
                         ::testing::Values(::vernier::testing::StoreKind::kPostgres),
                         ::vernier::testing::StoreParamName);

}  // namespace
}  // namespace vernier::testing
