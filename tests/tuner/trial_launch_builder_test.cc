#include "tuner/trial_launch_builder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace vernier::tuner {
namespace {

using ::testing::ElementsAre;

TEST(TrialLaunchBuilderTest, FlagsUseTheShortestExactForm) {
  v1::ParameterValue value;
  value.set_parameter_name("batch_size");
  value.set_double_value(32);
  EXPECT_EQ(ParameterFlag(value), "--batch_size=32");
  value.set_double_value(0.1);
  EXPECT_EQ(ParameterFlag(value), "--batch_size=0.1");
  value.set_double_value(1e-5);
  EXPECT_EQ(ParameterFlag(value), "--batch_size=1e-05");
  value.set_int_value(-3);
  EXPECT_EQ(ParameterFlag(value), "--batch_size=-3");
  value.set_string_value("adam");
  EXPECT_EQ(ParameterFlag(value), "--batch_size=adam");
}

TEST(TrialLaunchBuilderTest, MasterRunsTheAgentAroundTheTrainerWithItsFlags) {
  v1::Job job;
  job.set_job_id("sweep");
  job.set_job_dir("/runs");
  job.add_command("python3");
  job.add_command("train.py");
  job.mutable_training_input()->add_args("--epochs=2");
  v1::Study study;
  study.set_name("sweep");
  study.mutable_spec()->add_metrics()->set_metric_id("accuracy");
  v1::Trial trial;
  trial.set_id(7);
  v1::ParameterValue& lr = *trial.add_parameters();
  lr.set_parameter_name("lr");
  lr.set_double_value(0.25);
  LaunchSettings settings{"/bin/vernier-agent", "127.0.0.1:9", std::chrono::milliseconds(1500)};

  const scheduler::TrialLaunch launch = BuildTrialLaunch(job, study, trial, settings, 0);
  EXPECT_EQ(launch.trial_dir, "/runs/7");
  ASSERT_EQ(launch.replicas.size(), 1u);
  const scheduler::ReplicaLaunch& master = launch.replicas[0];
  EXPECT_EQ(master.role, "master");
  EXPECT_EQ(master.log_path, "/runs/7/logs/master-0.log");
  EXPECT_THAT(master.argv,
              ElementsAre("/bin/vernier-agent", "--server", "127.0.0.1:9", "--study", "sweep",
                          "--trial", "7", "--role", "master", "--index", "0", "--metric-tag",
                          "accuracy", "--trial-dir", "/runs/7", "--grace-period-ms", "1500",
                          "--heartbeat-interval-ms", "5000", "--", "python3", "train.py",
                          "--epochs=2", "--lr=0.25", "--job-dir=/runs/7"));
  EXPECT_EQ(master.env.at("CLOUD_ML_JOB_ID"), "sweep");
}

TEST(TrialLaunchBuilderTest, MetricRegexAndHeartbeatIntervalReachTheAgent) {
  v1::Job job;
  job.set_job_id("sweep");
  job.set_job_dir("/runs");
  job.add_command("train");
  job.mutable_training_input()->mutable_hyperparameters()->set_metric_regex(
      R"(acc (?P<accuracy>\S+))");
  v1::Study study;
  study.set_name("sweep");
  v1::Trial trial;
  trial.set_id(2);
  LaunchSettings settings{"/bin/vernier-agent", "127.0.0.1:9", std::chrono::milliseconds(1500),
                          std::chrono::milliseconds(250)};

  const scheduler::TrialLaunch launch = BuildTrialLaunch(job, study, trial, settings, 0);
  ASSERT_EQ(launch.replicas.size(), 1u);
  const std::vector<std::string>& argv = launch.replicas[0].argv;
  const auto separator = std::find(argv.begin(), argv.end(), "--");
  ASSERT_NE(separator, argv.end());
  EXPECT_THAT(std::vector<std::string>(separator - 4, separator + 2),
              ElementsAre("--heartbeat-interval-ms", "250", "--metric-regex",
                          R"(acc (?P<accuracy>\S+))", "--", "train"));
}

}  // namespace
}  // namespace vernier::tuner
