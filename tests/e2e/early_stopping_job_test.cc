// End to end with early stopping on: the real `vernier serve`, CLI and agent,
// and a trainer whose curves differ clearly by a hyperparameter.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "tests/e2e/early_stopping_grid.h"
#include "tests/support/job_client.h"
#include "tests/support/server_process.h"
#include "tests/support/subprocess.h"

namespace vernier::testing {
namespace {

using ::testing::HasSubstr;

constexpr int kCurveSteps = 30;

double Quality(const v1::Trial& trial) { return trial.parameters(0).double_value(); }

class EarlyStoppingJobTest : public ::testing::Test {
 protected:
  // Runs the grid job with `config` and checks that the lagging trial ended
  // stopped early, with `reason` at the start of the policy's words, and that
  // every view shows so.
  void ExpectTheLaggingTrialStopped(const std::string& config_text, const std::string& reason);

  TempDir dir_;
};

TEST_F(EarlyStoppingJobTest, LaggingTrialsEndStoppedEarlyAndShowSoInDescribeAndLeaderboard) {
  ExpectTheLaggingTrialStopped(kEarlyStoppingGridConfig, "median stopping");
}

// The default policy, the learning-curve model, asked to judge after 3
// finished trials (the 4th ends as the lagging trial starts: its default 5
// would never be reached while it runs).
TEST_F(EarlyStoppingJobTest, TheDefaultLearningCurvePolicyStopsTheLaggingTrial) {
  std::string config = kEarlyStoppingGridConfig;
  const std::string median = "    earlyStopping: {policy: MEDIAN_STOPPING}\n";
  ASSERT_NE(config.find(median), std::string::npos);
  config.replace(config.find(median), median.size(), "    earlyStopping: {minTrials: 3}\n");
  ExpectTheLaggingTrialStopped(config, "learning curve");
}

void EarlyStoppingJobTest::ExpectTheLaggingTrialStopped(const std::string& config_text,
                                                        const std::string& reason) {
  ServerProcess server(dir_.path() + "/data");
  server.Start();
  const std::string config = dir_.path() + "/hp.yaml";
  WriteFile(config, config_text);
  const std::vector<std::string> trainer = {"python3",
                                            SourcePath("tests/e2e/learning_curve_trainer.py"),
                                            "--steps", std::to_string(kCurveSteps)};
  CommandResult submit =
      RunCommand(Submit(server, "early", config, dir_.path() + "/runs", trainer));
  ASSERT_EQ(submit.exit_code, 0) << submit.out << submit.err;

  const v1::GetJobResponse job = WaitForJob(server, "early", Ended);
  ASSERT_EQ(job.job().state(), v1::Job::SUCCEEDED) << job.DebugString() << server.log();
  EXPECT_GE(job.trial_counts().stopped_early(), 1);
  EXPECT_EQ(job.trial_counts().succeeded() + job.trial_counts().stopped_early(), 8);

  std::map<double, v1::Trial> by_quality;
  for (const v1::Trial& trial : ListTrials(server, "early")) by_quality[Quality(trial)] = trial;
  ASSERT_EQ(by_quality.size(), 8u);
  const v1::Trial& lagging = by_quality[kLaggingQuality];
  EXPECT_EQ(lagging.state(), v1::Trial::STOPPED_EARLY) << lagging.DebugString() << server.log();
  const v1::Trial& best = by_quality[0.8];
  EXPECT_EQ(best.state(), v1::Trial::SUCCEEDED);
  EXPECT_EQ(best.measurement_count(), kCurveSteps);
  // The lagging trial starts after 4 trials have ended, so it is judged from
  // its first steps: stopped long before its last.
  EXPECT_LT(lagging.measurement_count(), kCurveSteps) << lagging.DebugString();
  for (const auto& [quality, trial] : by_quality) {
    if (trial.state() != v1::Trial::STOPPED_EARLY) continue;
    // Stopped as it reported, with its last measurement as the final one
    // and the policy's reason. (Which other trials are judged, and when,
    // depends on which had ended by then: on a loaded machine one may be
    // stopped at its last report.)
    EXPECT_EQ(trial.final_measurement().step(),
              trial.measurements(trial.measurements_size() - 1).step());
    EXPECT_THAT(trial.status_reason(), HasSubstr(reason + ": best value"));
    EXPECT_THAT(server.log(),
                HasSubstr("trial=" + std::to_string(trial.id()) + " stopping early: " + reason));
  }

  // trainingOutput: every trial, the best first, the stopped ones marked.
  const v1::TrainingOutput& output = job.job().training_output();
  ASSERT_EQ(output.trials_size(), 8);
  EXPECT_EQ(output.trials(0).trial_id(), std::to_string(best.id()));
  int marked = 0;
  for (const v1::HyperparameterOutput& trial : output.trials()) {
    const bool stopped = by_quality[std::stod(trial.hyperparameters().at("quality"))].state() ==
                         v1::Trial::STOPPED_EARLY;
    EXPECT_EQ(trial.is_trial_stopped_early(), stopped) << trial.DebugString();
    marked += trial.is_trial_stopped_early() ? 1 : 0;
  }
  EXPECT_EQ(marked, job.trial_counts().stopped_early());

  CommandResult describe =
      RunCommand(Cli(server, {"jobs", "describe", "early", "--format", "json"}));
  ASSERT_EQ(describe.exit_code, 0) << describe.err;
  EXPECT_THAT(describe.out, HasSubstr("\"isTrialStoppedEarly\": true"));
  CommandResult table = RunCommand(Cli(server, {"jobs", "describe", "early"}));
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_THAT(table.out,
              HasSubstr(std::to_string(job.trial_counts().stopped_early()) + " stopped early"));

  CommandResult leaderboard = RunCommand(Cli(server, {"trials", "leaderboard", "early"}));
  ASSERT_EQ(leaderboard.exit_code, 0) << leaderboard.err;
  EXPECT_THAT(leaderboard.out, HasSubstr("STOPPED_EARLY"));
  EXPECT_THAT(leaderboard.out, HasSubstr("quality=0.2"));
}

}  // namespace
}  // namespace vernier::testing
