#include "tuner/cli/job_progress.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/time/time.h"
#include "google/protobuf/util/time_util.h"

namespace vernier::cli {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

const absl::Time kStart = absl::FromUnixSeconds(1'700'000'000);

v1::GetJobResponse Snapshot(v1::Job::State state, int active) {
  v1::GetJobResponse snapshot;
  v1::Job& job = *snapshot.mutable_job();
  job.set_job_id("sweep");
  job.set_state(state);
  *job.mutable_create_time() =
      google::protobuf::util::TimeUtil::SecondsToTimestamp(absl::ToUnixSeconds(kStart));
  *job.mutable_start_time() =
      google::protobuf::util::TimeUtil::SecondsToTimestamp(absl::ToUnixSeconds(kStart));
  job.mutable_training_input()->mutable_hyperparameters()->set_max_trials(4);
  job.mutable_training_input()->mutable_hyperparameters()->set_goal(v1::MetricSpec::MAXIMIZE);
  job.mutable_training_input()->mutable_hyperparameters()->set_hyperparameter_metric_tag(
      "accuracy");
  snapshot.mutable_trial_counts()->set_active(active);
  return snapshot;
}

void AddTrial(v1::GetJobResponse& snapshot, int id, v1::Trial::State state, double accuracy,
              bool resumed = false) {
  v1::HyperparameterOutput* trial = snapshot.mutable_job()->mutable_training_output()->add_trials();
  trial->set_trial_id(std::to_string(id));
  trial->set_state(state);
  trial->set_resumed(resumed);
  if (state == v1::Trial::SUCCEEDED) {
    trial->mutable_final_metric()->set_objective_value(accuracy);
    trial->mutable_final_metric()->set_training_step(10);
  }
  v1::TrainingOutput& output = *snapshot.mutable_job()->mutable_training_output();
  if (!resumed && state != v1::Trial::ACTIVE) {
    output.set_completed_trial_count(output.completed_trial_count() + 1);
  }
}

TEST(JobProgressTest, ATrialLineAsEachEndsInIdOrderThenTheProgressWithAnEstimate) {
  JobProgress progress;
  EXPECT_THAT(progress.Update(Snapshot(v1::Job::RUNNING, 2), kStart + absl::Seconds(5)),
              ElementsAre("progress: 0/4 trials ended, 2 running, 5.0s elapsed"));
  // Nothing changed: nothing to say.
  EXPECT_THAT(progress.Update(Snapshot(v1::Job::RUNNING, 2), kStart + absl::Seconds(6)), IsEmpty());

  v1::GetJobResponse two = Snapshot(v1::Job::RUNNING, 2);
  AddTrial(two, 2, v1::Trial::SUCCEEDED, 0.75);
  AddTrial(two, 1, v1::Trial::FAILED, 0);
  EXPECT_THAT(progress.Update(two, kStart + absl::Seconds(60)),
              ElementsAre("trial 1 FAILED  (its log: vernier jobs stream-logs sweep --trial 1)  "
                          "best 0.75 (trial 2)",
                          "trial 2 SUCCEEDED  accuracy=0.75 at step 10  best 0.75 (trial 2)",
                          "progress: 2/4 trials ended, 2 running, 1m00s elapsed, about 1m00s "
                          "left"));

  v1::GetJobResponse done = Snapshot(v1::Job::SUCCEEDED, 0);
  *done.mutable_job()->mutable_end_time() =
      google::protobuf::util::TimeUtil::SecondsToTimestamp(absl::ToUnixSeconds(kStart) + 90);
  AddTrial(done, 2, v1::Trial::SUCCEEDED, 0.75);
  AddTrial(done, 1, v1::Trial::FAILED, 0);
  AddTrial(done, 4, v1::Trial::SUCCEEDED, 0.5);
  AddTrial(done, 3, v1::Trial::SUCCEEDED, 0.875);
  // Trials already reported are not repeated; the elapsed time stops at the
  // job's end.
  EXPECT_THAT(progress.Update(done, kStart + absl::Seconds(300)),
              ElementsAre("trial 3 SUCCEEDED  accuracy=0.875 at step 10  best 0.875 (trial 3)",
                          "trial 4 SUCCEEDED  accuracy=0.5 at step 10  best 0.875 (trial 3)",
                          "progress: 4/4 trials ended, 0 running, 1m30s elapsed, job SUCCEEDED"));
}

// Issue 36 item 7: with several objectives a line showed only the first
// and a "best" by it alone.
TEST(JobProgressTest, SeveralObjectivesShowEveryMetricAndTheParetoFront) {
  JobProgress progress;
  v1::GetJobResponse snapshot = Snapshot(v1::Job::RUNNING, 0);
  v1::HyperparameterSpec& hyperparameters =
      *snapshot.mutable_job()->mutable_training_input()->mutable_hyperparameters();
  hyperparameters.clear_hyperparameter_metric_tag();
  hyperparameters.clear_goal();
  v1::MetricSpec& accuracy = *hyperparameters.add_metrics();
  accuracy.set_metric_id("accuracy");
  accuracy.set_goal(v1::MetricSpec::MAXIMIZE);
  v1::MetricSpec& latency = *hyperparameters.add_metrics();
  latency.set_metric_id("latency");
  latency.set_goal(v1::MetricSpec::MINIMIZE);
  const auto add = [&](int id, double accuracy_value, double latency_value) {
    AddTrial(snapshot, id, v1::Trial::SUCCEEDED, accuracy_value);
    v1::HyperparameterOutput& trial =
        *snapshot.mutable_job()->mutable_training_output()->mutable_trials()->rbegin();
    v1::Metric& first = *trial.add_final_metrics();
    first.set_metric_id("accuracy");
    first.set_value(accuracy_value);
    v1::Metric& second = *trial.add_final_metrics();
    second.set_metric_id("latency");
    second.set_value(latency_value);
  };
  add(1, 0.9, 20);
  add(2, 0.8, 10);
  add(3, 0.7, 30);  // Beaten by trial 1 on both.
  const std::vector<std::string> lines = progress.Update(snapshot, kStart + absl::Seconds(30));
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0],
            "trial 1 SUCCEEDED  accuracy=0.9 latency=20 at step 10  Pareto front: "
            "trials 1, 2 (2)");
  EXPECT_EQ(lines[2],
            "trial 3 SUCCEEDED  accuracy=0.7 latency=30 at step 10  Pareto front: "
            "trials 1, 2 (2)");
}

TEST(JobProgressTest, AResumedJobsCopiesAreNotNews) {
  JobProgress progress;
  v1::GetJobResponse snapshot = Snapshot(v1::Job::RUNNING, 1);
  AddTrial(snapshot, 1, v1::Trial::SUCCEEDED, 0.9, /*resumed=*/true);
  AddTrial(snapshot, 2, v1::Trial::SUCCEEDED, 0.5);
  EXPECT_THAT(progress.Update(snapshot, kStart + absl::Seconds(10)),
              ElementsAre("trial 2 SUCCEEDED  accuracy=0.5 at step 10  best 0.9 (trial 1)",
                          "progress: 1/4 trials ended, 1 running, 10.0s elapsed, about 30.0s "
                          "left"));
}

TEST(JobProgressTest, AFailedTrialsReasonFollowsItsLineEveryLineKept) {
  JobProgress progress;
  v1::GetJobResponse snapshot = Snapshot(v1::Job::RUNNING, 1);
  AddTrial(snapshot, 1, v1::Trial::FAILED, 0);
  EXPECT_THAT(
      progress.Update(snapshot, kStart + absl::Seconds(10),
                      {{"1",
                        "master-0 exited with code 1; last output:\nTraceback (most recent "
                        "call last):\n  File \"task.py\", line 2\nModuleNotFoundError: x\n"}}),
      ElementsAre("trial 1 FAILED  (its log: vernier jobs stream-logs sweep --trial 1)",
                  "  master-0 exited with code 1; last output:",
                  "  Traceback (most recent call last):", "    File \"task.py\", line 2",
                  "  ModuleNotFoundError: x",
                  "progress: 1/4 trials ended, 1 running, 10.0s elapsed, about 30.0s left"));
}

TEST(JobProgressTest, PreparingSaysThePackagesAreInstallingAndTheTimeNeverGoesBack) {
  JobProgress progress;
  v1::GetJobResponse preparing = Snapshot(v1::Job::PREPARING, 0);
  preparing.mutable_job()->clear_start_time();
  EXPECT_THAT(progress.Update(preparing, kStart + absl::Seconds(1)),
              ElementsAre("progress: installing the job's packages (PREPARING), 1.0s elapsed"));
  // Started 0.6 s after the submission: still counted from the submission.
  v1::GetJobResponse running = Snapshot(v1::Job::RUNNING, 1);
  *running.mutable_job()->mutable_start_time() =
      google::protobuf::util::TimeUtil::MillisecondsToTimestamp(absl::ToUnixMillis(kStart) + 600);
  EXPECT_THAT(progress.Update(running, kStart + absl::Seconds(2)),
              ElementsAre("progress: 0/4 trials ended, 1 running, 2.0s elapsed"));
}

}  // namespace
}  // namespace vernier::cli
