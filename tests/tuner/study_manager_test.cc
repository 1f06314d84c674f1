#include "tuner/study_manager.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <future>
#include <map>
#include <optional>
#include <set>
#include <thread>
#include <utility>

#include "absl/synchronization/notification.h"
#include "suggest/designers/designer_factory.h"
#include "tests/support/log_capture.h"
#include "tests/support/subprocess.h"
#include "tuner/storage/sqlite/sqlite_storage.h"

namespace vernier::tuner {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;

v1::Study MakeStudy(const std::string& name, int max_trials = 0, int parallel = 0) {
  v1::Study study;
  study.set_name(name);
  v1::StudySpec& spec = *study.mutable_spec();
  v1::ParameterSpec& lr = *spec.add_parameters();
  lr.set_parameter_name("lr");
  lr.set_type(v1::ParameterSpec::DOUBLE);
  lr.set_min_value(0.001);
  lr.set_max_value(1.0);
  lr.set_scale_type(v1::ParameterSpec::UNIT_LOG_SCALE);
  v1::ParameterSpec& layers = *spec.add_parameters();
  layers.set_parameter_name("layers");
  layers.set_type(v1::ParameterSpec::INTEGER);
  layers.set_min_value(1);
  layers.set_max_value(4);
  v1::MetricSpec& metric = *spec.add_metrics();
  metric.set_metric_id("accuracy");
  metric.set_goal(v1::MetricSpec::MAXIMIZE);
  spec.set_algorithm(v1::RANDOM_SEARCH);
  spec.set_max_trials(max_trials);
  spec.set_max_parallel_trials(parallel);
  spec.set_seed(42);
  return study;
}

// A user-chosen trial: the given parameters, in the given order.
v1::Trial RequestedTrial(double lr, int64_t layers, bool layers_first = false) {
  v1::Trial trial;
  v1::ParameterValue lr_value;
  lr_value.set_parameter_name("lr");
  lr_value.set_double_value(lr);
  v1::ParameterValue layers_value;
  layers_value.set_parameter_name("layers");
  layers_value.set_int_value(layers);
  *trial.add_parameters() = layers_first ? layers_value : lr_value;
  *trial.add_parameters() = layers_first ? lr_value : layers_value;
  return trial;
}

v1::Measurement Accuracy(int64_t step, double value, int64_t sequence = 0) {
  v1::Measurement measurement;
  measurement.set_step(step);
  measurement.set_sequence_number(sequence);
  v1::Metric& metric = *measurement.add_metrics();
  metric.set_metric_id("accuracy");
  metric.set_value(value);
  return measurement;
}

class StudyManagerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<storage::SqliteStorage>> opened =
        storage::SqliteStorage::Open(dir_.path() + "/vernier.db");
    ASSERT_TRUE(opened.ok()) << opened.status();
    storage_ = std::move(*opened);
    manager_ = std::make_unique<StudyManager>(*storage_, [this] { return now_; });
  }

  testing::TempDir dir_;
  absl::Time now_ = absl::FromUnixSeconds(1700000000);
  std::unique_ptr<storage::SqliteStorage> storage_;
  std::unique_ptr<StudyManager> manager_;
};

TEST_F(StudyManagerTest, CreateStudyIsIdempotentOnNameAndRejectsAnotherSpec) {
  ASSERT_TRUE(manager_->CreateStudy(MakeStudy("s1")).ok());
  absl::StatusOr<v1::Study> again = manager_->CreateStudy(MakeStudy("s1"));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->state(), v1::Study::ACTIVE);

  v1::Study other = MakeStudy("s1", 5);
  absl::StatusOr<v1::Study> conflict = manager_->CreateStudy(other);
  EXPECT_EQ(conflict.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(conflict.status().message(), HasSubstr("already exists with a different spec"));
}

TEST_F(StudyManagerTest, UserAttributesAreStoredWithTheStudyAndTheTrial) {
  ASSERT_TRUE(manager_->CreateStudy(MakeStudy("notes")).ok());
  google::protobuf::Map<std::string, std::string> set;
  set["dataset"] = "\"cifar10\"";
  absl::StatusOr<v1::Study> study = manager_->SetStudyUserAttributes(
      "notes", set, google::protobuf::RepeatedPtrField<std::string>());
  ASSERT_TRUE(study.ok()) << study.status();
  EXPECT_EQ(study->user_attributes().at("dataset"), "\"cifar10\"");
  absl::StatusOr<v1::Trial> created_trial = manager_->CreateTrial("notes", RequestedTrial(0.1, 2));
  ASSERT_TRUE(created_trial.ok()) << created_trial.status();
  const int64_t id = created_trial->id();
  set.clear();
  set["seed"] = "7";
  ASSERT_TRUE(manager_->SetTrialUserAttributes("notes", id, set, {}).ok());
  // A new manager over the same store (a restarted server) reads them back.
  StudyManager again(*storage_, [this] { return now_; });
  absl::StatusOr<v1::Trial> trial = storage_->GetTrial("notes", id, false);
  ASSERT_TRUE(trial.ok()) << trial.status();
  EXPECT_EQ(trial->user_attributes().at("seed"), "7");
  EXPECT_EQ(storage_->GetStudy("notes")->user_attributes().at("dataset"), "\"cifar10\"");
  // Creating the study again with its spec keeps them.
  absl::StatusOr<v1::Study> created = again.CreateStudy(MakeStudy("notes"));
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_EQ(created->user_attributes().at("dataset"), "\"cifar10\"");

  EXPECT_EQ(manager_->SetTrialUserAttributes("notes", 999, set, {}).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(manager_->SetStudyUserAttributes("absent", set, {}).status().code(),
            absl::StatusCode::kNotFound);
  set.clear();
  set[""] = "1";
  const absl::Status empty_key = manager_->SetTrialUserAttributes("notes", id, set, {}).status();
  EXPECT_EQ(empty_key.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(empty_key.message(), HasSubstr("trial"));
}

TEST_F(StudyManagerTest, CreateStudyRejectsBadNamesAndSpecs) {
  v1::Study bad_name = MakeStudy("9lives");
  EXPECT_THAT(manager_->CreateStudy(bad_name).status().message(),
              HasSubstr("must start with a letter"));
  v1::Study bad_char = MakeStudy("a b");
  EXPECT_THAT(manager_->CreateStudy(bad_char).status().message(),
              HasSubstr("may hold only letters, digits"));
  v1::Study inverted = MakeStudy("inverted");
  inverted.mutable_spec()->mutable_parameters(0)->set_max_value(0.0001);
  absl::StatusOr<v1::Study> created = manager_->CreateStudy(inverted);
  EXPECT_EQ(created.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(created.status().message(), HasSubstr("parameters[0]"));
}

TEST_F(StudyManagerTest, SuggestRespectsMaxParallelAndMaxTrials) {
  ASSERT_TRUE(manager_->CreateStudy(MakeStudy("s", /*max_trials=*/5, /*parallel=*/2)).ok());
  absl::StatusOr<SuggestResult> first = manager_->SuggestTrials("s", 4, "");
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->trials.size(), 2u);
  EXPECT_THAT(first->reason, HasSubstr("max_parallel_trials=2"));

  for (const v1::Trial& trial : first->trials) {
    ASSERT_TRUE(
        manager_->AddMeasurements("s", trial.id(), std::vector<v1::Measurement>{Accuracy(1, 0.5)})
            .ok());
    ASSERT_TRUE(manager_->CompleteTrial("s", trial.id(), std::nullopt).ok());
  }
  absl::StatusOr<SuggestResult> second = manager_->SuggestTrials("s", 2, "");
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->trials.size(), 2u);
  for (const v1::Trial& trial : second->trials) {
    ASSERT_TRUE(manager_->FailTrial("s", trial.id(), "boom").ok());
  }
  absl::StatusOr<SuggestResult> third = manager_->SuggestTrials("s", 2, "");
  ASSERT_TRUE(third.ok());
  EXPECT_EQ(third->trials.size(), 1u);
  EXPECT_THAT(third->reason, HasSubstr("max_trials=5"));
  EXPECT_EQ(third->trials[0].id(), 5);
}

TEST_F(StudyManagerTest, AStudyIsCompletedWhenItsMaxTrialsHaveAllEnded) {
  ASSERT_TRUE(manager_->CreateStudy(MakeStudy("s", /*max_trials=*/3, /*parallel=*/3)).ok());
  absl::StatusOr<SuggestResult> trials = manager_->SuggestTrials("s", 3, "");
  ASSERT_TRUE(trials.ok()) << trials.status();
  ASSERT_EQ(trials->trials.size(), 3u);
  ASSERT_TRUE(
      manager_->AddMeasurements("s", 1, std::vector<v1::Measurement>{Accuracy(1, 0.5)}).ok());
  ASSERT_TRUE(manager_->CompleteTrial("s", 1, std::nullopt).ok());
  ASSERT_TRUE(manager_->FailTrial("s", 2, "boom").ok());
  // All trials exist, one is still running: the study goes on.
  EXPECT_EQ(manager_->GetStudy("s")->state(), v1::Study::ACTIVE);
  ASSERT_TRUE(manager_->MarkInfeasible("s", 3, "diverged").ok());
  EXPECT_EQ(manager_->GetStudy("s")->state(), v1::Study::COMPLETED);
  // Asking for more gets none, with the reason, not an error.
  absl::StatusOr<SuggestResult> more = manager_->SuggestTrials("s", 1, "");
  ASSERT_TRUE(more.ok()) << more.status();
  EXPECT_THAT(more->trials, IsEmpty());
  EXPECT_THAT(more->reason, HasSubstr("COMPLETED: its max_trials=3 trials have ended"));
}

TEST_F(StudyManagerTest, AStudyWithoutMaxTrialsStaysActive) {
  ASSERT_TRUE(manager_->CreateStudy(MakeStudy("s")).ok());
  absl::StatusOr<SuggestResult> trials = manager_->SuggestTrials("s", 1, "");
  ASSERT_TRUE(trials.ok()) << trials.status();
  ASSERT_TRUE(manager_->FailTrial("s", 1, "boom").ok());
  EXPECT_EQ(manager_->GetStudy("s")->state(), v1::Study::ACTIVE);
}

// A completion hands over the study it read, which the next suggestion then
// uses instead of reading it; not when the completion may have ended the
// study (max_trials), and the suggestion reads it again.
TEST_F(StudyManagerTest, ACompletionHandsOverTheStudyItReadUnlessItMayHaveCompletedIt) {
  ASSERT_TRUE(manager_->CreateStudy(MakeStudy("open")).ok());
  ASSERT_TRUE(manager_->SuggestTrials("open", 1, "c").ok());
  ASSERT_TRUE(
      manager_->AddMeasurements("open", 1, std::vector<v1::Measurement>{Accuracy(1, 0.5)}).ok());
  std::optional<v1::Study> read;
  ASSERT_TRUE(manager_->CompleteTrial("open", 1, std::nullopt, &read).ok());
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->name(), "open");
  EXPECT_EQ(read->state(), v1::Study::ACTIVE);
  absl::StatusOr<SuggestResult> next = manager_->SuggestTrials("open", 1, "c", &*read);
  ASSERT_TRUE(next.ok()) << next.status();
  ASSERT_EQ(next->trials.size(), 1u);
  EXPECT_EQ(next->trials[0].id(), 2);
  // A failed completion hands over nothing.
  EXPECT_FALSE(manager_->CompleteTrial("open", 7, std::nullopt, &read).ok());
  EXPECT_FALSE(read.has_value());

  ASSERT_TRUE(manager_->CreateStudy(MakeStudy("limited", /*max_trials=*/1)).ok());
  ASSERT_TRUE(manager_->SuggestTrials("limited", 1, "c").ok());
  ASSERT_TRUE(manager_->AddMeasurements("limited", 1,
                                        std::vector<v1::Measurement>{Accuracy(1, 0.5)})
                  .ok());
  ASSERT_TRUE(manager_->CompleteTrial("limited", 1, std::nullopt, &read).ok());
  EXPECT_FALSE(read.has_value());
  absl::StatusOr<SuggestResult> none = manager_->SuggestTrials("limited", 1, "c");
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_THAT(none->trials, IsEmpty());
  EXPECT_THAT(none->reason, HasSubstr("COMPLETED"));
}

TEST_F(StudyManagerTest, SuggestedParametersRespectTheSpace) {
  ASSERT_TRUE(manager_->CreateStudy(MakeStudy("s")).ok());
  absl::StatusOr<SuggestResult> result = manager_->SuggestTrials("s", 50, "");
  ASSERT_TRUE(result.ok());
  ASSERT_EQ(result->trials.size(), 50u);
  for (const v1::Trial& trial : result->trials) {
    ASSERT_EQ(trial.parameters_size(), 2);
    EXPECT_GE(trial.parameters(0).double_value(), 0.001);
    EXPECT_LE(trial.parameters(0).double_value(), 1.0);
    EXPECT_GE(trial.parameters(1).int_value(), 1);
    EXPECT_LE(trial.parameters(1).int_value(), 4);
    EXPECT_EQ(trial.state(), v1::Trial::ACTIVE);
  }
}

TEST_F(StudyManagerTest, SameClientGetsItsUnfinishedTrialBack) {
  ASSERT_TRUE(manager_->CreateStudy(MakeStudy("s")).ok());
  absl::StatusOr<SuggestResult> first = manager_->SuggestTrials("s", 1, "worker-1");
  ASSERT_TRUE(first.ok());
  absl::StatusOr<SuggestResult> again = manager_->SuggestTrials("s", 1, "worker-1");
  ASSERT_TRUE(again.ok());
  ASSERT_EQ(again->trials.size(), 1u);
  EXPECT_EQ(again->trials[0].id(), first->trials[0].id());
  absl::StatusOr<SuggestResult> other = manager_->SuggestTrials("s", 1, "worker-2");
  ASSERT_TRUE(other.ok());
  EXPECT_NE(other->trials[0].id(), first->trials[0].id());
}

TEST_F(StudyManagerTest, RequestedTrialsGoOutFirst) {
  ASSERT_TRUE(manager_->CreateStudy(MakeStudy("s")).ok());
  const v1::Trial mine = RequestedTrial(0.01, 3, /*layers_first=*/true);
  absl::StatusOr<v1::Trial> created = manager_->CreateTrial("s", mine);
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_EQ(created->state(), v1::Trial::REQUESTED);
  EXPECT_EQ(created->parameters(0).parameter_name(), "lr");  // reordered to the spec

  absl::StatusOr<SuggestResult> result = manager_->SuggestTrials("s", 2, "c");
  ASSERT_TRUE(result.ok());
  ASSERT_EQ(result->trials.size(), 2u);
  EXPECT_EQ(result->trials[0].id(), created->id());
  EXPECT_EQ(result->trials[0].state(), v1::Trial::ACTIVE);

  v1::Trial out_of_range = mine;
  out_of_range.mutable_parameters(1)->set_double_value(5);
  EXPECT_EQ(manager_->CreateTrial("s", out_of_range).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(StudyManagerTest, MeasurementsAreCheckedAndStoredOncePerSequenceNumber) {
  ASSERT_TRUE(manager_->CreateStudy(MakeStudy("s")).ok());
  const int64_t id = manager_->SuggestTrials("s", 1, "")->trials[0].id();
  absl::StatusOr<v1::Trial> nan =
      manager_->AddMeasurements("s", id, std::vector<v1::Measurement>{Accuracy(1, NAN)});
  EXPECT_EQ(nan.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(nan.status().message(), HasSubstr("values must be finite"));

  ASSERT_TRUE(
      manager_
          ->AddMeasurements("s", id,
                            std::vector<v1::Measurement>{Accuracy(1, 0.1, 1), Accuracy(2, 0.2, 2)})
          .ok());
  ASSERT_TRUE(
      manager_
          ->AddMeasurements("s", id,
                            std::vector<v1::Measurement>{Accuracy(2, 0.2, 2), Accuracy(3, 0.3, 3)})
          .ok());
  absl::StatusOr<v1::Trial> trial = manager_->GetTrial("s", id, true);
  ASSERT_TRUE(trial.ok());
  EXPECT_EQ(trial->measurements_size(), 3);
  EXPECT_EQ(trial->latest_measurement().step(), 3);

  absl::StatusOr<v1::Trial> missing =
      manager_->AddMeasurements("s", 99, std::vector<v1::Measurement>{Accuracy(1, 0.1)});
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
}

TEST_F(StudyManagerTest, AMetricTwiceInOneMeasurementIsRefused) {
  ASSERT_TRUE(manager_->CreateStudy(MakeStudy("s")).ok());
  const int64_t id = manager_->SuggestTrials("s", 1, "")->trials[0].id();
  v1::Measurement twice = Accuracy(1, 0.5);
  v1::Metric& again = *twice.add_metrics();
  again.set_metric_id("accuracy");
  again.set_value(0.9);
  absl::StatusOr<v1::Trial> refused =
      manager_->AddMeasurements("s", id, std::vector<v1::Measurement>{twice});
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.status().message(),
              HasSubstr("measurement at step 1: metric \"accuracy\" appears twice (metrics[0] "
                        "and metrics[1])"));
  absl::StatusOr<v1::Trial> trial = manager_->GetTrial("s", id, true);
  ASSERT_TRUE(trial.ok());
  EXPECT_EQ(trial->measurements_size(), 0) << "nothing of the refused batch is stored";
}

TEST_F(StudyManagerTest, CompleteTrialIsIdempotentForTheSameResultOnly) {
  ASSERT_TRUE(manager_->CreateStudy(MakeStudy("s")).ok());
  const int64_t id = manager_->SuggestTrials("s", 1, "")->trials[0].id();
  absl::StatusOr<v1::Trial> nothing = manager_->CompleteTrial("s", id, std::nullopt);
  EXPECT_EQ(nothing.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(nothing.status().message(), HasSubstr("has no measurement"));

  v1::Measurement lacks_objective;
  v1::Metric& loss = *lacks_objective.add_metrics();
  loss.set_metric_id("loss");
  loss.set_value(0.3);
  absl::StatusOr<v1::Trial> no_objective = manager_->CompleteTrial("s", id, lacks_objective);
  EXPECT_EQ(no_objective.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(no_objective.status().message(),
              HasSubstr("lacks the objective metric \"accuracy\""));

  ASSERT_TRUE(manager_->CompleteTrial("s", id, Accuracy(5, 0.9)).ok());
  absl::StatusOr<v1::Trial> same = manager_->CompleteTrial("s", id, Accuracy(5, 0.9));
  ASSERT_TRUE(same.ok()) << same.status();
  EXPECT_EQ(same->state(), v1::Trial::SUCCEEDED);
  absl::StatusOr<v1::Trial> different = manager_->CompleteTrial("s", id, Accuracy(5, 0.8));
  EXPECT_EQ(different.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(different.status().message(), HasSubstr("another final measurement"));

  absl::StatusOr<v1::Trial> late =
      manager_->AddMeasurements("s", id, std::vector<v1::Measurement>{Accuracy(6, 0.9)});
  EXPECT_EQ(late.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(late.status().message(), HasSubstr("is SUCCEEDED"));
}

TEST_F(StudyManagerTest, StopMakesTheTrialEndStoppedEarly) {
  ASSERT_TRUE(manager_->CreateStudy(MakeStudy("s")).ok());
  const int64_t id = manager_->SuggestTrials("s", 1, "")->trials[0].id();
  EXPECT_FALSE(manager_->CheckEarlyStopping("s", id)->should_stop);
  ASSERT_TRUE(manager_->StopTrial("s", id).ok());
  EXPECT_TRUE(manager_->CheckEarlyStopping("s", id)->should_stop);
  // Again while it is stopping: nothing changes.
  absl::StatusOr<v1::Trial> again = manager_->StopTrial("s", id);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->state(), v1::Trial::STOPPING);
  EXPECT_EQ(again->status_reason(), "stop requested");
  ASSERT_TRUE(
      manager_->AddMeasurements("s", id, std::vector<v1::Measurement>{Accuracy(2, 0.4)}).ok());
  absl::StatusOr<v1::Trial> done = manager_->CompleteTrial("s", id, std::nullopt);
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_EQ(done->state(), v1::Trial::STOPPED_EARLY);
  EXPECT_EQ(manager_->StopTrial("s", id).status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(manager_->StopTrial("s", id).status().message(),
              HasSubstr("is STOPPED_EARLY; only ACTIVE trials can be stopped"));
}

TEST_F(StudyManagerTest, InfeasibleAndFailedTrialsKeepTheirReason) {
  ASSERT_TRUE(manager_->CreateStudy(MakeStudy("s")).ok());
  std::vector<v1::Trial> trials = manager_->SuggestTrials("s", 2, "")->trials;
  absl::StatusOr<v1::Trial> infeasible = manager_->MarkInfeasible("s", trials[0].id(), "diverged");
  ASSERT_TRUE(infeasible.ok());
  EXPECT_EQ(infeasible->state(), v1::Trial::INFEASIBLE);
  EXPECT_EQ(infeasible->status_reason(), "diverged");
  EXPECT_EQ(infeasible->end_time().seconds(), 1700000000);
  absl::StatusOr<v1::Trial> failed = manager_->FailTrial("s", trials[0].id(), "other");
  EXPECT_EQ(failed.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(failed.status().message(), HasSubstr("already ended INFEASIBLE"));
}

TEST_F(StudyManagerTest, LeaderboardRanksBestFirstForEitherGoal) {
  v1::Study study = MakeStudy("s");
  study.mutable_spec()->mutable_metrics(0)->set_goal(v1::MetricSpec::MINIMIZE);
  ASSERT_TRUE(manager_->CreateStudy(study).ok());
  std::vector<v1::Trial> trials = manager_->SuggestTrials("s", 4, "")->trials;
  const double values[] = {0.5, 0.2, 0.9, 0.3};
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(manager_->CompleteTrial("s", trials[i].id(), Accuracy(1, values[i])).ok());
  }
  absl::StatusOr<std::vector<v1::Trial>> board = manager_->ListOptimalTrials("s", 2);
  ASSERT_TRUE(board.ok());
  ASSERT_EQ(board->size(), 2u);
  EXPECT_EQ((*board)[0].id(), trials[1].id());
  EXPECT_EQ((*board)[1].id(), trials[0].id());
  EXPECT_EQ(manager_->ListOptimalTrials("nope", 0).status().code(), absl::StatusCode::kNotFound);
}

TEST_F(StudyManagerTest, ConcurrentSuggestionsNeverExceedTheLimitsOrRepeatIds) {
  ASSERT_TRUE(manager_->CreateStudy(MakeStudy("s", /*max_trials=*/40, /*parallel=*/40)).ok());
  std::vector<std::thread> clients;
  std::mutex mutex;
  std::vector<int64_t> ids;
  for (int c = 0; c < 8; ++c) {
    clients.emplace_back([&, c] {
      for (int i = 0; i < 10; ++i) {
        absl::StatusOr<SuggestResult> result = manager_->SuggestTrials("s", 1, "");
        if (!result.ok()) continue;
        std::lock_guard lock(mutex);
        for (const v1::Trial& trial : result->trials) ids.push_back(trial.id());
      }
    });
  }
  for (std::thread& client : clients) client.join();
  EXPECT_EQ(ids.size(), 40u);
  EXPECT_EQ(std::set<int64_t>(ids.begin(), ids.end()).size(), ids.size());
}

TEST_F(StudyManagerTest, SuggestRejectsBadCountsAndUnknownStudies) {
  ASSERT_TRUE(manager_->CreateStudy(MakeStudy("s")).ok());
  EXPECT_EQ(manager_->SuggestTrials("s", 0, "").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(manager_->SuggestTrials("s", 0, "").status().message(), HasSubstr("count is 0"));
  EXPECT_EQ(manager_->SuggestTrials("missing", 1, "").status().code(), absl::StatusCode::kNotFound);
  ASSERT_TRUE(manager_->DeleteStudy("s").ok());
  EXPECT_EQ(manager_->GetStudy("s").status().code(), absl::StatusCode::kNotFound);
}

v1::Study WithEarlyStopping(v1::Study study, v1::EarlyStoppingSpec::Policy policy, int min_trials) {
  v1::EarlyStoppingSpec& early_stopping = *study.mutable_spec()->mutable_early_stopping();
  early_stopping.set_enabled(true);
  early_stopping.set_policy(policy);
  early_stopping.set_min_trials(min_trials);
  return study;
}

// Reports `values` at steps first_step, first_step + 1, ... one
// measurement per call.
void Report(StudyManager& manager, int64_t trial_id, const std::vector<double>& values,
            int64_t first_step = 1) {
  for (size_t i = 0; i < values.size(); ++i) {
    ASSERT_TRUE(
        manager
            .AddMeasurements("s", trial_id,
                             std::vector<v1::Measurement>{Accuracy(first_step + i, values[i])})
            .ok());
  }
}

TEST_F(StudyManagerTest, MedianStoppingStopsALaggingTrialAsItReportsAndItEndsStoppedEarly) {
  ASSERT_TRUE(manager_
                  ->CreateStudy(
                      WithEarlyStopping(MakeStudy("s"), v1::EarlyStoppingSpec::MEDIAN_STOPPING, 2))
                  .ok());
  std::vector<v1::Trial> trials = manager_->SuggestTrials("s", 4, "")->trials;
  Report(*manager_, trials[0].id(), {0.8, 0.85, 0.9});
  Report(*manager_, trials[1].id(), {0.7, 0.75, 0.8});
  // With one completed trial (min_trials 2) nothing is stopped yet.
  ASSERT_TRUE(manager_->CompleteTrial("s", trials[0].id(), std::nullopt).ok());
  Report(*manager_, trials[2].id(), {0.1});
  EXPECT_FALSE(manager_->CheckEarlyStopping("s", trials[2].id())->should_stop);
  ASSERT_TRUE(manager_->CompleteTrial("s", trials[1].id(), std::nullopt).ok());

  // The median of 0.825 and 0.725 (running averages up to step 2) is 0.775.
  Report(*manager_, trials[3].id(), {0.8, 0.85});
  EXPECT_FALSE(manager_->CheckEarlyStopping("s", trials[3].id())->should_stop);
  Report(*manager_, trials[2].id(), {0.2}, /*first_step=*/2);
  absl::StatusOr<EarlyStoppingDecision> decision =
      manager_->CheckEarlyStopping("s", trials[2].id());
  ASSERT_TRUE(decision.ok()) << decision.status();
  EXPECT_TRUE(decision->should_stop);
  EXPECT_THAT(decision->reason, HasSubstr("best value 0.2 by step 2 is worse than 0.775"));
  absl::StatusOr<v1::Trial> stopping = manager_->GetTrial("s", trials[2].id(), false);
  EXPECT_EQ(stopping->state(), v1::Trial::STOPPING);
  EXPECT_EQ(stopping->status_reason(), decision->reason);
  // Asked again (another replica, a retried report), the answer holds.
  EXPECT_EQ(manager_->CheckEarlyStopping("s", trials[2].id())->reason, decision->reason);

  absl::StatusOr<v1::Trial> stopped = manager_->CompleteTrial("s", trials[2].id(), std::nullopt);
  ASSERT_TRUE(stopped.ok()) << stopped.status();
  EXPECT_EQ(stopped->state(), v1::Trial::STOPPED_EARLY);
  EXPECT_EQ(stopped->final_measurement().step(), 2);
  EXPECT_EQ(stopped->final_measurement().metrics(0).value(), 0.2);
  EXPECT_EQ(stopped->status_reason(), decision->reason);
  absl::StatusOr<std::vector<v1::Trial>> board = manager_->ListOptimalTrials("s", 0);
  ASSERT_TRUE(board.ok());
  ASSERT_EQ(board->size(), 3u);
  EXPECT_EQ(board->back().id(), trials[2].id());
}

TEST_F(StudyManagerTest, AshaStopsTheWorseTrialAtARungFromBatchedReports) {
  v1::Study study = WithEarlyStopping(MakeStudy("s"), v1::EarlyStoppingSpec::ASHA, 0);
  study.mutable_spec()->mutable_early_stopping()->set_grace_period(2);
  ASSERT_TRUE(manager_->CreateStudy(study).ok());
  std::vector<v1::Trial> trials = manager_->SuggestTrials("s", 2, "")->trials;
  // One batch: the cache reads the whole trial; then one at a time.
  ASSERT_TRUE(
      manager_
          ->AddMeasurements("s", trials[0].id(),
                            std::vector<v1::Measurement>{Accuracy(1, 0.5), Accuracy(2, 0.6)})
          .ok());
  EXPECT_FALSE(manager_->CheckEarlyStopping("s", trials[0].id())->should_stop);
  Report(*manager_, trials[1].id(), {0.3});  // Before the first rung.
  EXPECT_FALSE(manager_->CheckEarlyStopping("s", trials[1].id())->should_stop);
  Report(*manager_, trials[1].id(), {0.4}, /*first_step=*/2);
  absl::StatusOr<EarlyStoppingDecision> decision =
      manager_->CheckEarlyStopping("s", trials[1].id());
  ASSERT_TRUE(decision.ok()) << decision.status();
  EXPECT_TRUE(decision->should_stop);
  EXPECT_THAT(decision->reason, HasSubstr("ASHA: at the rung at step 2, value 0.4 ranks 2 of the "
                                          "2 trials that reached it; the best 1 (1/2) continue"));
  EXPECT_EQ(manager_->GetTrial("s", trials[0].id(), false)->state(), v1::Trial::ACTIVE);
}

TEST_F(StudyManagerTest, WithoutEarlyStoppingOnlyAStopRequestStopsATrial) {
  ASSERT_TRUE(manager_->CreateStudy(MakeStudy("s")).ok());
  std::vector<v1::Trial> trials = manager_->SuggestTrials("s", 2, "")->trials;
  Report(*manager_, trials[0].id(), {0.9, 0.9, 0.9});
  ASSERT_TRUE(manager_->CompleteTrial("s", trials[0].id(), std::nullopt).ok());
  Report(*manager_, trials[1].id(), {0.0, 0.0, 0.0});
  EXPECT_FALSE(manager_->CheckEarlyStopping("s", trials[1].id())->should_stop);
  EXPECT_EQ(manager_->GetTrial("s", trials[1].id(), false)->state(), v1::Trial::ACTIVE);
}

TEST_F(StudyManagerTest, SuggestedTrialsFollowTheDefaultGaussianProcessDesigner) {
  v1::Study study = MakeStudy("gp", /*max_trials=*/12);
  study.mutable_spec()->set_algorithm(v1::ALGORITHM_UNSPECIFIED);
  ASSERT_TRUE(manager_->CreateStudy(study).ok());
  std::set<std::string> seen;
  for (int round = 0; round < 4; ++round) {
    absl::StatusOr<SuggestResult> result = manager_->SuggestTrials("gp", 3, "");
    ASSERT_TRUE(result.ok()) << result.status();
    ASSERT_EQ(result->trials.size(), 3u);
    for (const v1::Trial& trial : result->trials) {
      EXPECT_TRUE(seen.insert(trial.parameters(0).DebugString() + trial.parameters(1).DebugString())
                      .second);
      const double lr = trial.parameters(0).double_value();
      ASSERT_TRUE(
          manager_->CompleteTrial("gp", trial.id(), Accuracy(1, -std::abs(std::log10(lr) + 2)))
              .ok());
    }
  }
}

// What a DesignerCallLog designer saw.
struct DesignerCalls {
  absl::Notification entered;
  absl::Notification release;
  absl::Mutex mutex;
  // The count of each call, in order.
  std::vector<int> asked ABSL_GUARDED_BY(mutex);
};

// Records its calls in `calls`; the first one notifies `entered` and waits
// for `release`.
class DesignerCallLog : public suggest::Designer {
 public:
  DesignerCallLog(std::unique_ptr<suggest::Designer> inner, DesignerCalls* calls)
      : inner_(std::move(inner)), calls_(calls) {}

  absl::StatusOr<suggest::Suggestions> Suggest(const suggest::DesignerHistory& history, int count,
                                               std::mt19937_64& rng) override {
    bool first = false;
    {
      absl::MutexLock lock(&calls_->mutex);
      first = calls_->asked.empty();
      calls_->asked.push_back(count);
    }
    if (first) {
      calls_->entered.Notify();
      calls_->release.WaitForNotification();
    }
    return inner_->Suggest(history, count, rng);
  }

 private:
  std::unique_ptr<suggest::Designer> inner_;
  DesignerCalls* calls_;
};

TEST_F(StudyManagerTest, EverythingElseProceedsWhileOneStudysDesignerComputes) {
  DesignerCalls calls;
  // GAUSSIAN_PROCESS_BANDIT studies get the blocking designer.
  StudyManager manager(
      *storage_, [this] { return now_; },
      [&](const v1::StudySpec& spec) -> absl::StatusOr<std::unique_ptr<suggest::Designer>> {
        absl::StatusOr<std::unique_ptr<suggest::Designer>> designer = suggest::MakeDesigner(spec);
        if (!designer.ok() || spec.algorithm() != v1::GAUSSIAN_PROCESS_BANDIT) return designer;
        return std::make_unique<DesignerCallLog>(*std::move(designer), &calls);
      });
  v1::Study slow = MakeStudy("slow");
  slow.mutable_spec()->set_algorithm(v1::GAUSSIAN_PROCESS_BANDIT);
  ASSERT_TRUE(manager.CreateStudy(slow).ok());
  ASSERT_TRUE(manager.CreateStudy(MakeStudy("fast")).ok());
  // A running trial of the slow study, handed out without its designer.
  ASSERT_TRUE(manager.CreateTrial("slow", RequestedTrial(0.01, 2)).ok());
  absl::StatusOr<SuggestResult> handed_out = manager.SuggestTrials("slow", 1, "");
  ASSERT_TRUE(handed_out.ok()) << handed_out.status();
  const int64_t running_id = handed_out->trials.at(0).id();

  std::future<absl::StatusOr<SuggestResult>> slow_suggestion =
      std::async(std::launch::async, [&] { return manager.SuggestTrials("slow", 1, ""); });
  calls.entered.WaitForNotification();

  // While the slow study's designer is blocked: the same study's other
  // calls, another study's suggestions and new studies all complete.
  std::future<void> others = std::async(std::launch::async, [&] {
    EXPECT_TRUE(manager.GetStudy("slow").ok());
    EXPECT_TRUE(manager.ListTrials("slow", storage::TrialQuery()).ok());
    EXPECT_TRUE(manager.AddMeasurements("slow", running_id, std::vector{Accuracy(1, 0.5)}).ok());
    EXPECT_TRUE(manager.CheckEarlyStopping("slow", running_id).ok());
    EXPECT_TRUE(manager.CompleteTrial("slow", running_id, Accuracy(2, 0.6)).ok());
    EXPECT_TRUE(manager.ListOptimalTrials("slow", 1).ok());
    absl::StatusOr<SuggestResult> fast = manager.SuggestTrials("fast", 2, "");
    EXPECT_TRUE(fast.ok()) << fast.status();
    if (fast.ok()) {
      EXPECT_EQ(fast->trials.size(), 2u);
    }
    EXPECT_TRUE(manager.CreateStudy(MakeStudy("third")).ok());
  });
  // Not a timing assertion: a deadline so that a regression fails instead
  // of hanging the suite.
  const bool finished = others.wait_for(std::chrono::seconds(60)) == std::future_status::ready;
  EXPECT_TRUE(finished) << "calls waited for another study's designer";
  EXPECT_EQ(slow_suggestion.wait_for(std::chrono::seconds(0)), std::future_status::timeout);
  calls.release.Notify();
  others.wait();
  absl::StatusOr<SuggestResult> slow_result = slow_suggestion.get();
  ASSERT_TRUE(slow_result.ok()) << slow_result.status();
  EXPECT_EQ(slow_result->trials.size(), 1u);
}

TEST_F(StudyManagerTest, SuggestionsWaitingTogetherGetOneDesignerCallAndTheSerialOutcome) {
  DesignerCalls calls;
  StudyManager manager(
      *storage_, [this] { return now_; },
      [&](const v1::StudySpec& spec) -> absl::StatusOr<std::unique_ptr<suggest::Designer>> {
        absl::StatusOr<std::unique_ptr<suggest::Designer>> designer = suggest::MakeDesigner(spec);
        if (!designer.ok()) return designer;
        return std::make_unique<DesignerCallLog>(*std::move(designer), &calls);
      });
  ASSERT_TRUE(manager.CreateStudy(MakeStudy("s", 0, /*parallel=*/6)).ok());
  std::future<absl::StatusOr<SuggestResult>> first =
      std::async(std::launch::async, [&] { return manager.SuggestTrials("s", 1, "first"); });
  calls.entered.WaitForNotification();

  // While the first pass computes: seven clients, and the first of them again.
  const std::vector<std::string> clients = {"c0", "c1", "c2", "c3", "c4", "c5", "c6", "c0"};
  std::vector<std::future<absl::StatusOr<SuggestResult>>> waiting;
  for (const std::string& client : clients) {
    waiting.push_back(std::async(std::launch::async,
                                 [&, client] { return manager.SuggestTrials("s", 1, client); }));
    // Queued one after another, so the passes below are known.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (manager.WaitingSuggestions("s") < static_cast<int>(waiting.size()) &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  ASSERT_EQ(manager.WaitingSuggestions("s"), static_cast<int>(clients.size()));
  calls.release.Notify();

  absl::StatusOr<SuggestResult> first_result = first.get();
  ASSERT_TRUE(first_result.ok()) << first_result.status();
  ASSERT_EQ(first_result->trials.size(), 1u);
  std::set<int64_t> ids = {first_result->trials[0].id()};
  std::vector<SuggestResult> results;
  for (auto& future : waiting) {
    absl::StatusOr<SuggestResult> result = future.get();
    ASSERT_TRUE(result.ok()) << result.status();
    results.push_back(*result);
  }
  // One designer call for c0..c4 (c5 and c6 find max_parallel_trials=6
  // reached); the repeated c0 waits for a third pass and gets c0's trial.
  for (int i = 0; i < 5; ++i) {
    ASSERT_EQ(results[i].trials.size(), 1u) << clients[i];
    EXPECT_EQ(results[i].trials[0].client_id(), clients[i]);
    EXPECT_TRUE(ids.insert(results[i].trials[0].id()).second) << "duplicate trial id";
  }
  for (int i = 5; i < 7; ++i) {
    EXPECT_TRUE(results[i].trials.empty()) << clients[i];
    EXPECT_EQ(results[i].reason, "6 of max_parallel_trials=6 trials are running");
  }
  ASSERT_EQ(results[7].trials.size(), 1u);
  EXPECT_EQ(results[7].trials[0].id(), results[0].trials[0].id());
  absl::MutexLock lock(&calls.mutex);
  EXPECT_EQ(calls.asked, (std::vector<int>{1, 5}));
}

// Passes its inner designer's points on as a fallback's.
class FallingBackDesigner : public suggest::Designer {
 public:
  explicit FallingBackDesigner(std::unique_ptr<suggest::Designer> inner)
      : inner_(std::move(inner)) {}

  absl::StatusOr<suggest::Suggestions> Suggest(const suggest::DesignerHistory& history, int count,
                                               std::mt19937_64& rng) override {
    absl::StatusOr<suggest::Suggestions> suggestions = inner_->Suggest(history, count, rng);
    if (suggestions.ok()) suggestions->fallback_reason = "the model failed (test)";
    return suggestions;
  }

 private:
  std::unique_ptr<suggest::Designer> inner_;
};

// Hands the designer's history to `seen` (trial ids, objectives) and
// suggests with the inner designer.
class HistoryRecorder : public suggest::Designer {
 public:
  struct Seen {
    std::vector<std::pair<int64_t, std::optional<double>>> completed;
    std::vector<int64_t> pending;
  };
  HistoryRecorder(std::unique_ptr<suggest::Designer> inner, std::vector<Seen>* seen)
      : inner_(std::move(inner)), seen_(seen) {}

  absl::StatusOr<suggest::Suggestions> Suggest(const suggest::DesignerHistory& history, int count,
                                               std::mt19937_64& rng) override {
    Seen& seen = seen_->emplace_back();
    for (const suggest::TrialObservation& trial : history.completed) {
      seen.completed.emplace_back(trial.trial_id, trial.objective);
    }
    for (const suggest::TrialObservation& trial : history.pending) {
      seen.pending.push_back(trial.trial_id);
    }
    return inner_->Suggest(history, count, rng);
  }

 private:
  std::unique_ptr<suggest::Designer> inner_;
  std::vector<Seen>* seen_;
};

// The settled trials' observations are kept between suggestions; each
// designer call still sees exactly the study's trials as stored: every ended
// one with its objective, in id order, and every pending one, however the
// trials ended (out of order, some left running across calls).
TEST_F(StudyManagerTest, EveryDesignerCallSeesTheStoredTrialsWhileSettledOnesAreKept) {
  std::vector<HistoryRecorder::Seen> seen;
  StudyManager manager(
      *storage_, [this] { return now_; },
      [&](const v1::StudySpec& spec) -> absl::StatusOr<std::unique_ptr<suggest::Designer>> {
        absl::StatusOr<std::unique_ptr<suggest::Designer>> designer = suggest::MakeDesigner(spec);
        if (!designer.ok()) return designer;
        return std::make_unique<HistoryRecorder>(*std::move(designer), &seen);
      });
  ASSERT_TRUE(manager.CreateStudy(MakeStudy("s")).ok());
  std::map<int64_t, std::optional<double>> ended;
  std::vector<int64_t> running;
  for (int round = 0; round < 6; ++round) {
    absl::StatusOr<SuggestResult> result = manager.SuggestTrials("s", 3, "");
    ASSERT_TRUE(result.ok()) << result.status();
    ASSERT_EQ(seen.size(), static_cast<size_t>(round + 1));
    // What the designer saw is what was stored before the call.
    const HistoryRecorder::Seen& call = seen.back();
    const std::map<int64_t, std::optional<double>> completed(call.completed.begin(),
                                                             call.completed.end());
    EXPECT_EQ(completed, ended);
    EXPECT_EQ(call.completed.size(), ended.size());
    EXPECT_TRUE(std::is_sorted(call.completed.begin(), call.completed.end()));
    EXPECT_THAT(call.pending, ::testing::UnorderedElementsAreArray(running));
    for (const v1::Trial& trial : result->trials) running.push_back(trial.id());
    // End the newest trial and the oldest running one, out of id order:
    // the first as a success, the second as a failure without an objective.
    const int64_t newest = running.back();
    running.pop_back();
    ASSERT_TRUE(manager.CompleteTrial("s", newest, Accuracy(1, 0.1 * newest)).ok());
    ended[newest] = 0.1 * newest;
    const int64_t oldest = running.front();
    running.erase(running.begin());
    ASSERT_TRUE(manager.FailTrial("s", oldest, "crashed").ok());
    ended[oldest] = std::nullopt;
  }
}

TEST_F(StudyManagerTest, ADesignerFallbackIsLoggedWithTheStudyAndStillSuggests) {
  StudyManager manager(
      *storage_, [this] { return now_; },
      [](const v1::StudySpec& spec) -> absl::StatusOr<std::unique_ptr<suggest::Designer>> {
        absl::StatusOr<std::unique_ptr<suggest::Designer>> designer = suggest::MakeDesigner(spec);
        if (!designer.ok()) return designer;
        return std::make_unique<FallingBackDesigner>(*std::move(designer));
      });
  ASSERT_TRUE(manager.CreateStudy(MakeStudy("s")).ok());
  testing::LogCapture log;
  absl::StatusOr<SuggestResult> result = manager.SuggestTrials("s", 2, "");
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->trials.size(), 2u);
  EXPECT_EQ(result->reason, "");
  EXPECT_THAT(log.Text(), HasSubstr("study=s designer fell back: the model failed (test)"));
}

}  // namespace
}  // namespace vernier::tuner
