#include "tuner/cli/job_commands.h"

#include <cstdlib>
#include <filesystem>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace vernier::cli {
namespace {

using ::testing::HasSubstr;

v1::HyperparameterOutput* AddTrial(v1::Job& job, const std::string& id, double objective,
                                   v1::Trial::State state = v1::Trial::SUCCEEDED) {
  v1::HyperparameterOutput* trial = job.mutable_training_output()->add_trials();
  trial->set_trial_id(id);
  trial->set_state(state);
  trial->mutable_final_metric()->set_objective_value(objective);
  return trial;
}

TEST(FindBestTrialTest, MaximizesUnlessTheGoalIsMinimize) {
  v1::Job job;
  AddTrial(job, "1", 0.2);
  AddTrial(job, "2", 0.7);
  AddTrial(job, "3", 0.5);
  job.mutable_training_input()->mutable_hyperparameters()->set_goal(v1::MetricSpec::MAXIMIZE);
  ASSERT_NE(FindBestTrial(job), nullptr);
  EXPECT_EQ(FindBestTrial(job)->trial_id(), "2");

  job.mutable_training_input()->mutable_hyperparameters()->set_goal(v1::MetricSpec::MINIMIZE);
  EXPECT_EQ(FindBestTrial(job)->trial_id(), "1");
}

TEST(FindBestTrialTest, SkipsFailedInfeasibleAndUnfinishedTrials) {
  v1::Job job;
  AddTrial(job, "1", 0.3);
  AddTrial(job, "2", 0.9, v1::Trial::FAILED);
  AddTrial(job, "3", 0.8, v1::Trial::INFEASIBLE);
  job.mutable_training_output()->add_trials()->set_trial_id("4");
  AddTrial(job, "5", 0.4, v1::Trial::STOPPED_EARLY);
  ASSERT_NE(FindBestTrial(job), nullptr);
  EXPECT_EQ(FindBestTrial(job)->trial_id(), "5");
}

TEST(FindBestTrialTest, NoneWithoutAFinalMetric) {
  v1::Job job;
  job.mutable_training_output()->add_trials()->set_trial_id("1");
  EXPECT_EQ(FindBestTrial(job), nullptr);
  EXPECT_EQ(FindBestTrial(v1::Job()), nullptr);
}

// job1 of the example config in /tmp/job1, without a command.
SubmitJobOptions ExampleOptions() {
  SubmitJobOptions options;
  options.job_id = "job1";
  options.config_path =
      std::string(std::getenv("VERNIER_SOURCE_DIR") != nullptr ? std::getenv("VERNIER_SOURCE_DIR")
                                                               : ".") +
      "/examples/hptuning_config.yaml";
  options.job_dir = "/tmp/job1";
  return options;
}

TEST(BuildJobTest, RejectsAnEmptyCommand) {
  SubmitJobOptions options = ExampleOptions();
  absl::StatusOr<v1::Job> job = JobCommands::BuildJob(options);
  EXPECT_EQ(job.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(job.status().message(), HasSubstr("the trainer command is missing"));

  options.command = {"/bin/true"};
  job = JobCommands::BuildJob(options);
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->job_dir(), "/tmp/job1");
}

TEST(BuildJobTest, ValidatesTheJobIdFirst) {
  SubmitJobOptions options;
  options.job_id = "has-dash";
  options.config_path = "/nonexistent.yaml";
  options.command = {"/bin/true"};
  absl::StatusOr<v1::Job> job = JobCommands::BuildJob(options);
  EXPECT_EQ(job.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(job.status().message(), HasSubstr("job id \"has-dash\" has '-'"));
}

TEST(BuildJobTest, APackagedTrainerTakesItsArgumentsAndAbsolutePackages) {
  SubmitJobOptions options = ExampleOptions();
  options.package_path = "trainer/";
  options.module_name = "trainer.task";
  options.packages = {"dist/extra-1.0.tar.gz", "file:///wheels/x-1.0-py3-none-any.whl"};
  options.command = {"--epochs", "3"};
  absl::StatusOr<v1::Job> job = JobCommands::BuildJob(options);
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_TRUE(job->command().empty());
  EXPECT_EQ(job->training_input().python_module(), "trainer.task");
  const std::string cwd = std::filesystem::current_path().string();
  EXPECT_THAT(job->training_input().package_uris(),
              ::testing::ElementsAre(cwd + "/trainer", cwd + "/dist/extra-1.0.tar.gz",
                                     "file:///wheels/x-1.0-py3-none-any.whl"));
  const auto& args = job->training_input().args();
  ASSERT_GE(args.size(), 2);
  EXPECT_EQ(args[args.size() - 2], "--epochs");
  EXPECT_EQ(args[args.size() - 1], "3");
}

TEST(BuildJobTest, PackageFlagsWithoutAModuleAreRefused) {
  SubmitJobOptions options = ExampleOptions();
  options.command = {"python3", "train.py"};
  options.package_path = "trainer/";
  absl::StatusOr<v1::Job> job = JobCommands::BuildJob(options);
  EXPECT_EQ(job.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(job.status().message(), HasSubstr("--package-path needs --module-name"));
  options.package_path.clear();
  options.packages = {"a.whl"};
  job = JobCommands::BuildJob(options);
  EXPECT_EQ(job.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(job.status().message(), HasSubstr("--packages are installed for a packaged trainer"));
}

TEST(BuildJobTest, AJobDirThatIsAUrlIsRefusedNamingTheFlag) {
  SubmitJobOptions options = ExampleOptions();
  options.command = {"python3", "train.py"};
  options.job_dir = "gs://bucket/x";
  absl::StatusOr<v1::Job> job = JobCommands::BuildJob(options);
  EXPECT_EQ(job.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(job.status().message(), HasSubstr("--job-dir \"gs://bucket/x\": a URL"));
}

TEST(BuildJobTest, LabelsAndGcloudMetadataFlagsAreKept) {
  SubmitJobOptions options = ExampleOptions();
  options.command = {"python3", "train.py"};
  options.labels = {"team=vision", "owner=dora"};
  options.region = "us-central1";
  options.runtime_version = "2.11";
  options.python_version = "3.7";
  absl::StatusOr<v1::Job> job = JobCommands::BuildJob(options);
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->labels().at("team"), "vision");
  EXPECT_EQ(job->labels().at("owner"), "dora");
  EXPECT_EQ(job->training_input().region(), "us-central1");
  EXPECT_EQ(job->training_input().runtime_version(), "2.11");
  EXPECT_EQ(job->training_input().python_version(), "3.7");

  options.labels = {"novalue"};
  job = JobCommands::BuildJob(options);
  EXPECT_EQ(job.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(job.status().message(), HasSubstr("--labels: \"novalue\" is not KEY=VALUE"));
}

TEST(BuildJobTest, FindLinksAreMadeAbsoluteAndNeedAModule) {
  SubmitJobOptions options = ExampleOptions();
  options.command = {"python3", "train.py"};
  options.find_links = {"wheels"};
  absl::StatusOr<v1::Job> job = JobCommands::BuildJob(options);
  EXPECT_EQ(job.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(job.status().message(), HasSubstr("--find-links holds a packaged trainer's"));
  options.command.clear();
  options.module_name = "trainer.task";
  job = JobCommands::BuildJob(options);
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_THAT(job->training_input().find_links(),
              ::testing::ElementsAre(std::filesystem::current_path().string() + "/wheels"));
}

TEST(MatchesJobFilterTest, LabelsAndStatesMatchAndOtherTermsAreRefused) {
  v1::Job job;
  (*job.mutable_labels())["team"] = "vision";
  job.set_state(v1::Job::FAILED);
  EXPECT_TRUE(*MatchesJobFilter(job, "labels.team=vision"));
  EXPECT_FALSE(*MatchesJobFilter(job, "labels.team=nlp"));
  EXPECT_TRUE(*MatchesJobFilter(job, "labels.team"));
  EXPECT_FALSE(*MatchesJobFilter(job, "labels.owner"));
  EXPECT_TRUE(*MatchesJobFilter(job, "state=failed"));
  EXPECT_FALSE(*MatchesJobFilter(job, "state=SUCCEEDED"));
  const absl::StatusOr<bool> refused = MatchesJobFilter(job, "owner=dora");
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.status().message(), HasSubstr("--filter \"owner=dora\": expected labels."));
}

TEST(BuildJobTest, TheJobCarriesTheSubmittersVariablesAndTheEnvFlags) {
  SubmitJobOptions options = ExampleOptions();
  options.command = {"python3", "train.py"};
  options.submitter_env = {{"PATH", "/venv/bin:/usr/bin"}};
  options.env = {"WANDB_MODE=offline"};
  absl::StatusOr<v1::Job> job = JobCommands::BuildJob(options);
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->environment().at("PATH"), "/venv/bin:/usr/bin");
  EXPECT_EQ(job->environment().at("WANDB_MODE"), "offline");
  options.env = {"WORLD_SIZE=8"};
  job = JobCommands::BuildJob(options);
  EXPECT_THAT(job.status().message(), HasSubstr("--env: WORLD_SIZE is set by Vernier"));
}

}  // namespace
}  // namespace vernier::cli
