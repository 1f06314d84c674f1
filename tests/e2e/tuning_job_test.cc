// End to end: the real `vernier serve`, the real CLI, the real agent and the
// example trainer, over loopback.
#include <gmock/gmock.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "tests/support/job_client.h"
#include "tests/support/server_process.h"
#include "tests/support/subprocess.h"

namespace vernier::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// The trainer command: the example trainer, any flags after it.
std::vector<std::string> ExampleTrainer(int epochs) {
  return {"python3", SourcePath("examples/trainer/train.py"), "--epochs", std::to_string(epochs)};
}

class TuningJobTest : public ::testing::Test {
 protected:
  TempDir dir_;
};

TEST_F(TuningJobTest, ExampleJobFinishesAndItsLeaderboardRanksTheTrials) {
  ServerProcess server(dir_.path() + "/data");
  server.Start();
  const std::string job_dir = dir_.path() + "/runs";
  CommandResult submit =
      RunCommand(Submit(server, "example_job", SourcePath("examples/hptuning_config.yaml"), job_dir,
                        ExampleTrainer(3)));
  ASSERT_EQ(submit.exit_code, 0) << submit.out << submit.err;

  v1::GetJobResponse job = WaitForJob(server, "example_job", Ended);
  ASSERT_EQ(job.job().state(), v1::Job::SUCCEEDED) << job.DebugString() << server.log();
  EXPECT_EQ(job.job().training_output().completed_trial_count(), 12);
  EXPECT_EQ(job.trial_counts().succeeded(), 12);
  // The example config names no algorithm: the default is the GP designer.
  EXPECT_THAT(job.job().algorithm_description(),
              HasSubstr("GAUSSIAN_PROCESS_BANDIT (ALGORITHM_UNSPECIFIED"));

  // Best first, and the best beats the median trial.
  std::vector<double> objectives;
  for (const v1::HyperparameterOutput& trial : job.job().training_output().trials()) {
    objectives.push_back(trial.final_metric().objective_value());
    EXPECT_EQ(trial.hyperparameters().size(), 4u);
    EXPECT_EQ(trial.state(), v1::Trial::SUCCEEDED);
  }
  ASSERT_EQ(objectives.size(), 12u);
  EXPECT_TRUE(std::is_sorted(objectives.rbegin(), objectives.rend()));
  std::vector<double> sorted = objectives;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_GT(objectives.front(), (sorted[5] + sorted[6]) / 2);

  // Every trial got its own job dir with its replica log, and saw at most
  // 3 trials running beside it.
  for (const v1::Trial& trial : ListTrials(server, "example_job")) {
    EXPECT_GE(trial.measurement_count(), 3) << trial.DebugString();
    const std::string log = job_dir + "/" + std::to_string(trial.id()) + "/logs/master-0.log";
    EXPECT_TRUE(std::filesystem::exists(log)) << log;
  }

  CommandResult leaderboard =
      RunCommand(Cli(server, {"trials", "leaderboard", "example_job", "--top", "5"}));
  ASSERT_EQ(leaderboard.exit_code, 0) << leaderboard.err;
  EXPECT_THAT(leaderboard.out, HasSubstr("learning_rate="));
  EXPECT_THAT(leaderboard.out, HasSubstr("optimizer="));

  CommandResult describe = RunCommand(Cli(server, {"jobs", "describe", "example_job"}));
  ASSERT_EQ(describe.exit_code, 0) << describe.err;
  EXPECT_THAT(describe.out, HasSubstr("SUCCEEDED"));
  EXPECT_THAT(describe.out, HasSubstr("GAUSSIAN_PROCESS_BANDIT"));

  CommandResult logs =
      RunCommand(Cli(server, {"jobs", "stream-logs", "example_job", "--trial", "2"}));
  ASSERT_EQ(logs.exit_code, 0) << logs.err;
  EXPECT_THAT(logs.out, HasSubstr("[trial 2 master-0] epoch=1"));
  EXPECT_THAT(logs.out, Not(HasSubstr("[trial 3 ")));
}

// The flags the example trainer was given (metrics.json "flags"), less the
// job's own (--epochs, --job-dir).
std::set<std::string> TrainerFlags(const std::string& trial_dir) {
  std::ifstream file(trial_dir + "/metrics.json");
  std::stringstream text;
  text << file.rdbuf();
  google::protobuf::Struct metrics;
  EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(text.str(), &metrics).ok()) << trial_dir;
  std::set<std::string> flags;
  for (const google::protobuf::Value& flag : metrics.fields().at("flags").list_value().values()) {
    if (flag.string_value() != "epochs" && flag.string_value() != "job-dir") {
      flags.insert(flag.string_value());
    }
  }
  return flags;
}

TEST_F(TuningJobTest, AConditionalJobGivesEachTrialExactlyItsActiveParametersAsFlags) {
  ServerProcess server(dir_.path() + "/data");
  server.Start();
  const std::string job_dir = dir_.path() + "/runs";
  CommandResult submit =
      RunCommand(Submit(server, "conditional_job", SourcePath("examples/hptuning_conditional.yaml"),
                        job_dir, ExampleTrainer(2)));
  ASSERT_EQ(submit.exit_code, 0) << submit.out << submit.err;

  v1::GetJobResponse job = WaitForJob(server, "conditional_job", Ended);
  ASSERT_EQ(job.job().state(), v1::Job::SUCCEEDED) << job.DebugString() << server.log();
  EXPECT_EQ(job.trial_counts().succeeded(), 12);
  std::set<std::string> seen;
  for (const v1::Trial& trial : ListTrials(server, "conditional_job")) {
    std::map<std::string, v1::ParameterValue> values;
    for (const v1::ParameterValue& value : trial.parameters()) {
      values[value.parameter_name()] = value;
    }
    std::set<std::string> expected = {"learning_rate", "hidden_layers", "optimizer"};
    if (values.at("hidden_layers").int_value() > 0) expected.insert("hidden_units");
    if (values.at("optimizer").string_value() == "momentum") expected.insert("momentum");
    std::set<std::string> names;
    for (const auto& [name, value] : values) names.insert(name);
    EXPECT_EQ(names, expected) << trial.DebugString();
    EXPECT_EQ(TrainerFlags(job_dir + "/" + std::to_string(trial.id())), expected)
        << trial.DebugString();
    seen.insert(names.begin(), names.end());
  }
  // Both children were active somewhere and absent elsewhere.
  EXPECT_TRUE(seen.contains("hidden_units"));

  // The JSON output and the trainingOutput carry no inactive parameter.
  for (const v1::HyperparameterOutput& trial : job.job().training_output().trials()) {
    EXPECT_EQ(trial.hyperparameters().contains("hidden_units"),
              trial.hyperparameters().at("hidden_layers") != "0");
  }
  CommandResult leaderboard =
      RunCommand(Cli(server, {"trials", "leaderboard", "conditional_job", "--top", "12"}));
  ASSERT_EQ(leaderboard.exit_code, 0) << leaderboard.err;
  EXPECT_THAT(leaderboard.out, HasSubstr("hidden_layers="));
  EXPECT_THAT(leaderboard.out, Not(HasSubstr("(unset)")));
  CommandResult json = RunCommand(
      Cli(server, {"trials", "leaderboard", "conditional_job", "--top", "12", "--format", "json"}));
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_THAT(json.out, HasSubstr("\"hidden_layers\""));
  CommandResult describe = RunCommand(Cli(server, {"studies", "describe", "conditional_job"}));
  ASSERT_EQ(describe.exit_code, 0) << describe.err;
  EXPECT_THAT(describe.out, HasSubstr("hidden_units"));
  EXPECT_THAT(describe.out, HasSubstr("hidden_layers in {1, 2, 3}"));
}

// Issue 21's end to end: conditional parameters and two objectives in one
// YAML, through `vernier jobs submit`; the GP of several objectives drives it,
// and describe and the leaderboard show the Pareto front with both.
TEST_F(TuningJobTest, AJobWithTwoObjectivesOverAConditionalSpaceShowsItsParetoFront) {
  ServerProcess server(dir_.path() + "/data");
  server.Start();
  const std::string job_dir = dir_.path() + "/runs";
  CommandResult submit =
      RunCommand(Submit(server, "pareto_job", SourcePath("examples/hptuning_multi_objective.yaml"),
                        job_dir, ExampleTrainer(2)));
  ASSERT_EQ(submit.exit_code, 0) << submit.out << submit.err;

  v1::GetJobResponse job = WaitForJob(server, "pareto_job", Ended);
  ASSERT_EQ(job.job().state(), v1::Job::SUCCEEDED) << job.DebugString() << server.log();
  EXPECT_EQ(job.trial_counts().succeeded(), 12);
  EXPECT_THAT(job.job().algorithm_description(), HasSubstr("hypervolume"));
  // Every trial reported both objectives and kept to its active parameters.
  std::map<int64_t, std::pair<double, double>> objectives;
  for (const v1::Trial& trial : ListTrials(server, "pareto_job")) {
    std::map<std::string, double> metrics;
    for (const v1::Metric& metric : trial.final_measurement().metrics()) {
      metrics[metric.metric_id()] = metric.value();
    }
    ASSERT_TRUE(metrics.contains("accuracy") && metrics.contains("weights")) << trial.DebugString();
    objectives[trial.id()] = {metrics["accuracy"], metrics["weights"]};
    std::map<std::string, v1::ParameterValue> values;
    for (const v1::ParameterValue& value : trial.parameters()) {
      values[value.parameter_name()] = value;
    }
    EXPECT_EQ(values.contains("hidden_units"), values.at("hidden_layers").int_value() > 0)
        << trial.DebugString();
  }
  // trainingOutput carries both metrics of every trial.
  for (const v1::HyperparameterOutput& trial : job.job().training_output().trials()) {
    EXPECT_EQ(trial.final_metrics_size(), 2) << trial.DebugString();
  }

  // The front: no trial of the study dominates one of its trials, and every
  // trial left out is dominated by one.
  v1::ListOptimalTrialsResponse front;
  {
    grpc::ClientContext context;
    v1::ListOptimalTrialsRequest request;
    request.set_study_name("pareto_job");
    ASSERT_TRUE(server.StudyStub()->ListOptimalTrials(&context, request, &front).ok());
  }
  ASSERT_GT(front.trials_size(), 0);
  const auto dominates = [](std::pair<double, double> a, std::pair<double, double> b) {
    return a.first >= b.first && a.second <= b.second && (a.first > b.first || a.second < b.second);
  };
  std::set<int64_t> on_front;
  for (const v1::Trial& trial : front.trials()) {
    on_front.insert(trial.id());
    for (const auto& [id, other] : objectives) {
      EXPECT_FALSE(dominates(other, objectives[trial.id()])) << id << " dominates " << trial.id();
    }
  }
  for (const auto& [id, value] : objectives) {
    if (on_front.contains(id)) continue;
    EXPECT_TRUE(std::any_of(on_front.begin(), on_front.end(),
                            [&](int64_t best) { return dominates(objectives[best], value); }))
        << "trial " << id << " is left off the front but nothing dominates it";
  }

  CommandResult describe = RunCommand(Cli(server, {"jobs", "describe", "pareto_job"}));
  ASSERT_EQ(describe.exit_code, 0) << describe.err;
  EXPECT_THAT(describe.out, HasSubstr("accuracy (MAXIMIZE), weights (MINIMIZE)"));
  EXPECT_THAT(describe.out,
              HasSubstr(absl::StrCat("Pareto front (", front.trials_size(), " trials):")));
  CommandResult leaderboard =
      RunCommand(Cli(server, {"trials", "leaderboard", "pareto_job", "--top", "0"}));
  ASSERT_EQ(leaderboard.exit_code, 0) << leaderboard.err;
  EXPECT_THAT(leaderboard.out, HasSubstr("The Pareto front"));
  EXPECT_THAT(leaderboard.out, HasSubstr("accuracy"));
  EXPECT_THAT(leaderboard.out, HasSubstr("weights"));
}

TEST_F(TuningJobTest, CancelEndsEveryTrialProcessAndTheJob) {
  ServerProcess server(dir_.path() + "/data");
  server.Start();
  const std::string config = dir_.path() + "/hp.yaml";
  WriteFile(config, SmallConfig(6, 2, 0));
  // A trainer that reports forever and must be stopped.
  const std::vector<std::string> forever = {
      "/bin/sh", "-c",
      "trap 'echo got SIGTERM; exit 143' TERM; i=0; while true; do i=$((i+1)); "
      "echo step=$i accuracy=0.5; sleep 0.2; done",
      "trainer"};
  ASSERT_EQ(
      RunCommand(Submit(server, "to_cancel", config, dir_.path() + "/runs", forever)).exit_code, 0);
  v1::GetJobResponse running = WaitForJob(server, "to_cancel", [](const v1::GetJobResponse& job) {
    return job.trial_counts().active() == 2 && job.trial_runs_size() == 2 &&
           job.trial_runs(0).replicas(0).pid() > 0 && job.trial_runs(1).replicas(0).pid() > 0;
  });
  std::vector<int> pids;
  for (const v1::TrialRun& run : running.trial_runs()) pids.push_back(run.replicas(0).pid());

  CommandResult cancel = RunCommand(Cli(server, {"jobs", "cancel", "to_cancel"}));
  ASSERT_EQ(cancel.exit_code, 0) << cancel.err;
  v1::GetJobResponse job = WaitForJob(server, "to_cancel", Ended, std::chrono::seconds(60));
  EXPECT_EQ(job.job().state(), v1::Job::CANCELLED) << job.DebugString();
  EXPECT_EQ(job.trial_counts().active(), 0);
  // Cancelled, not failed: the trainers did nothing wrong. Their
  // measurements stay, and the job list says what happened.
  EXPECT_EQ(job.trial_counts().failed(), 0);
  EXPECT_EQ(job.trial_counts().cancelled(), 2);
  for (const v1::Trial& trial : ListTrials(server, "to_cancel")) {
    EXPECT_EQ(trial.state(), v1::Trial::CANCELLED) << trial.DebugString();
    EXPECT_EQ(trial.status_reason(), "cancelled with job to_cancel");
    EXPECT_GT(trial.measurements_size(), 0);
  }
  const CommandResult listed = RunCommand(Cli(server, {"jobs", "list"}));
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_THAT(listed.out, HasSubstr("CANCELLED     2/6  2 cancelled"));
  for (int pid : pids) EXPECT_FALSE(ProcessAlive(pid)) << "agent " << pid << " outlived the cancel";

  CommandResult again = RunCommand(Cli(server, {"jobs", "cancel", "to_cancel"}));
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_THAT(again.err, HasSubstr("FAILED_PRECONDITION"));
  EXPECT_THAT(again.err, HasSubstr("already ended CANCELLED"));
}

TEST_F(TuningJobTest, DeletingARunningJobsStudyIsRefusedAndItsNameNeverReused) {
  ServerProcess server(dir_.path() + "/data");
  server.Start();
  const std::string config = dir_.path() + "/hp.yaml";
  WriteFile(config, SmallConfig(4, 1, 0));
  const std::vector<std::string> forever = {
      "/bin/sh", "-c", "while true; do echo accuracy=0.5; sleep 0.2; done", "trainer"};
  ASSERT_EQ(RunCommand(Submit(server, "busy", config, dir_.path() + "/runs", forever)).exit_code,
            0);
  v1::GetJobResponse running = WaitForJob(server, "busy", [](const v1::GetJobResponse& job) {
    return job.trial_runs_size() == 1 && job.trial_runs(0).replicas(0).pid() > 0;
  });
  const int pid = running.trial_runs(0).replicas(0).pid();

  CommandResult refused = RunCommand(Cli(server, {"studies", "delete", "busy"}));
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_THAT(refused.err, HasSubstr("FAILED_PRECONDITION"));
  EXPECT_THAT(refused.err, HasSubstr("job \"busy\""));
  EXPECT_THAT(refused.err, HasSubstr("vernier jobs cancel busy"));
  // The job, its trial and its process go on as before.
  EXPECT_EQ(GetJob(server, "busy").job().state(), v1::Job::RUNNING);
  EXPECT_TRUE(ProcessAlive(pid));
  EXPECT_THAT(ListTrials(server, "busy"), ::testing::SizeIs(1));

  ASSERT_EQ(RunCommand(Cli(server, {"jobs", "cancel", "busy"})).exit_code, 0);
  WaitForJob(server, "busy", Ended, std::chrono::seconds(60));
  CommandResult deleted = RunCommand(Cli(server, {"studies", "delete", "busy"}));
  EXPECT_EQ(deleted.exit_code, 0) << deleted.err;

  // A new study never takes the job's study name, so no late report of the
  // job's replicas can land in it.
  v1::CreateStudyRequest create;
  create.mutable_study()->set_name("busy");
  v1::ParameterSpec* parameter = create.mutable_study()->mutable_spec()->add_parameters();
  parameter->set_parameter_name("lr");
  parameter->set_type(v1::ParameterSpec::DOUBLE);
  parameter->set_min_value(0.1);
  parameter->set_max_value(0.2);
  v1::MetricSpec* metric = create.mutable_study()->mutable_spec()->add_metrics();
  metric->set_metric_id("accuracy");
  metric->set_goal(v1::MetricSpec::MAXIMIZE);
  grpc::ClientContext context;
  v1::Study created;
  const grpc::Status status = server.StudyStub()->CreateStudy(&context, create, &created);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::ALREADY_EXISTS) << status.error_message();
  EXPECT_THAT(status.error_message(), HasSubstr("belongs to job \"busy\""));
}

TEST_F(TuningJobTest, DeletingAnEndedJobRemovesItsTrialsAndLogsButNotWhatTheTrainerWrote) {
  ServerProcess server(dir_.path() + "/data");
  server.Start();
  const std::string config = dir_.path() + "/hp.yaml";
  WriteFile(config, SmallConfig(4, 1, 0));
  // Saves a "model" into its trial's job dir, then reports until stopped.
  const std::vector<std::string> saving = {
      "/bin/sh", "-c",
      "for a; do case $a in --job-dir=*) d=${a#--job-dir=};; esac; done; "
      "echo weights > \"$d/model.txt\"; while true; do echo accuracy=0.5; sleep 0.2; done",
      "trainer"};
  const std::string runs = dir_.path() + "/runs";
  ASSERT_EQ(RunCommand(Submit(server, "old_job", config, runs, saving)).exit_code, 0);
  WaitForJob(server, "old_job", [](const v1::GetJobResponse& job) {
    return job.trial_runs_size() == 1 && job.trial_runs(0).replicas(0).pid() > 0;
  });
  const std::string log = runs + "/1/logs/master-0.log";
  const std::string model = runs + "/1/model.txt";

  // Not while it runs: nothing goes.
  CommandResult refused = RunCommand(Cli(server, {"jobs", "delete", "old_job"}));
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_THAT(refused.err, HasSubstr("FAILED_PRECONDITION"));
  EXPECT_THAT(refused.err, HasSubstr("job \"old_job\" is RUNNING"));
  EXPECT_THAT(refused.err, HasSubstr("vernier jobs cancel old_job"));
  EXPECT_EQ(GetJob(server, "old_job").job().state(), v1::Job::RUNNING);
  EXPECT_THAT(ListTrials(server, "old_job"), ::testing::SizeIs(1));

  ASSERT_EQ(RunCommand(Cli(server, {"jobs", "cancel", "old_job"})).exit_code, 0);
  WaitForJob(server, "old_job", Ended, std::chrono::seconds(60));
  ASSERT_TRUE(std::filesystem::exists(log)) << log;
  ASSERT_TRUE(std::filesystem::exists(model)) << model;

  CommandResult deleted = RunCommand(Cli(server, {"jobs", "delete", "old_job"}));
  ASSERT_EQ(deleted.exit_code, 0) << deleted.err;
  EXPECT_EQ(deleted.out, "Deleted job old_job with its study, trials and logs.\n");
  EXPECT_FALSE(std::filesystem::exists(log));
  EXPECT_FALSE(std::filesystem::exists(runs + "/1/logs"));
  EXPECT_TRUE(std::filesystem::exists(model)) << "the trainer's output must stay";
  CommandResult gone = RunCommand(Cli(server, {"jobs", "describe", "old_job"}));
  EXPECT_EQ(gone.exit_code, 1);
  EXPECT_THAT(gone.err, HasSubstr("NOT_FOUND"));
  CommandResult study = RunCommand(Cli(server, {"studies", "describe", "old_job"}));
  EXPECT_EQ(study.exit_code, 1);
  EXPECT_THAT(study.err, HasSubstr("NOT_FOUND"));
  CommandResult listed = RunCommand(Cli(server, {"jobs", "list"}));
  EXPECT_THAT(listed.out, Not(HasSubstr("old_job")));

  CommandResult unknown = RunCommand(Cli(server, {"jobs", "delete", "old_job"}));
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_THAT(unknown.err, HasSubstr("NOT_FOUND"));
  EXPECT_THAT(unknown.err, HasSubstr("job \"old_job\" not found"));

  // The id may be used again.
  CommandResult again = RunCommand(Submit(server, "old_job", config, runs, saving));
  EXPECT_EQ(again.exit_code, 0) << again.err;
  // Its trainer never ends by itself, and a server that stops leaves its
  // trials running for the next one to take over: cancelled, so that no
  // agent or trainer outlives the test.
  ASSERT_EQ(RunCommand(Cli(server, {"jobs", "cancel", "old_job"})).exit_code, 0);
  EXPECT_EQ(WaitForJob(server, "old_job", Ended, std::chrono::seconds(60)).job().state(),
            v1::Job::CANCELLED);
}

TEST_F(TuningJobTest, SubmitWithStreamLogsShowsLogsEachTrialTheProgressAndTheLeaderboard) {
  ServerProcess server(dir_.path() + "/data");
  server.Start();
  const std::string config = dir_.path() + "/hp.yaml";
  WriteFile(config, SmallConfig(3, 1, 0));
  std::vector<std::string> argv =
      Submit(server, "watched", config, dir_.path() + "/runs", ExampleTrainer(2));
  argv.insert(std::find(argv.begin(), argv.end(), "--"), "--stream-logs");
  const CommandResult watched = RunCommand(argv);
  ASSERT_EQ(watched.exit_code, 0) << watched.out << watched.err;
  // The submit, each replica's output, a line per trial as it ended, the
  // progress, and at the end the leaderboard.
  EXPECT_THAT(watched.out, HasSubstr("Submitted job watched"));
  for (const char* trial : {"1", "2", "3"}) {
    EXPECT_THAT(watched.out, HasSubstr(absl::StrCat("[trial ", trial, " master-0] epoch=1")));
    EXPECT_THAT(watched.out, HasSubstr(absl::StrCat("trial ", trial, " SUCCEEDED  accuracy=")));
  }
  EXPECT_THAT(watched.out, HasSubstr("master-0 agent] "));
  EXPECT_THAT(watched.out, Not(HasSubstr("[vernier-agent study=")));
  EXPECT_THAT(watched.out, HasSubstr("progress: 3/3 trials ended, 0 running"));
  EXPECT_THAT(watched.out, HasSubstr("job SUCCEEDED"));
  EXPECT_THAT(watched.out, HasSubstr("Study watched, metrics: "));
  EXPECT_LT(watched.out.find("progress: 3/3"), watched.out.find("Study watched, metrics: "));

  // --wait without the logs; a job that fails is exit code 1 with its state.
  const std::string failing_config = dir_.path() + "/failing.yaml";
  WriteFile(failing_config, SmallConfig(2, 1, 1));
  const std::vector<std::string> crashing = {"/bin/sh", "-c", "echo boom; exit 3", "trainer"};
  argv = Submit(server, "doomed", failing_config, dir_.path() + "/runs2", crashing);
  argv.insert(std::find(argv.begin(), argv.end(), "--"), "--wait");
  const CommandResult doomed = RunCommand(argv);
  EXPECT_EQ(doomed.exit_code, 1) << doomed.out << doomed.err;
  EXPECT_THAT(doomed.out, HasSubstr("trial 1 FAILED  (its log: vernier jobs stream-logs doomed"));
  // No log lines, but the failure's reason under the trial's line, with
  // the trainer's last output (issue 36).
  EXPECT_THAT(doomed.out, Not(HasSubstr("[trial 1 master-0]")));
  EXPECT_THAT(doomed.out, HasSubstr("\n  master-0 exited with code 3; last output:\n  boom\n"));
  EXPECT_THAT(doomed.err, HasSubstr("job doomed ended FAILED"));

  // One trial up close: every metric by step and the objective's curve.
  const CommandResult described = RunCommand(Cli(server, {"trials", "describe", "watched", "2"}));
  ASSERT_EQ(described.exit_code, 0) << described.err;
  EXPECT_THAT(described.out, HasSubstr("Trial:         2 of study watched"));
  EXPECT_THAT(described.out, HasSubstr("State:         SUCCEEDED"));
  EXPECT_THAT(described.out, HasSubstr("learning_rate="));
  EXPECT_THAT(described.out, HasSubstr("STEP  ELAPSED  accuracy"));
  EXPECT_THAT(described.out, HasSubstr("accuracy by step:\n"));
  EXPECT_THAT(described.out, HasSubstr("step 1  step 2"));
  const CommandResult no_trial = RunCommand(Cli(server, {"trials", "describe", "watched", "9"}));
  EXPECT_EQ(no_trial.exit_code, 1);
  EXPECT_THAT(no_trial.err, HasSubstr("NOT_FOUND"));

  // A trial the job does not have is an error.
  const CommandResult missing =
      RunCommand(Cli(server, {"jobs", "stream-logs", "watched", "--trial", "9"}));
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_THAT(missing.err, HasSubstr("job \"watched\" has no trial 9"));
}

TEST_F(TuningJobTest, ASymlinkPlantedInTheJobDirFailsTheTrialAndIsNeverWrittenThrough) {
  ServerProcess server(dir_.path() + "/data");
  server.Start();
  const std::string config = dir_.path() + "/hp.yaml";
  WriteFile(config, SmallConfig(1, 1, 1));
  const std::string victim = dir_.path() + "/victim.txt";
  WriteFile(victim, "precious\n");
  const std::string job_dir = dir_.path() + "/runs";
  std::filesystem::create_directories(job_dir + "/1/logs");
  const std::string log = job_dir + "/1/logs/master-0.log";
  std::filesystem::create_symlink(victim, log);
  const std::vector<std::string> trainer = {"/bin/sh", "-c", "echo accuracy=0.5", "trainer"};
  ASSERT_EQ(RunCommand(Submit(server, "planted", config, job_dir, trainer)).exit_code, 0);

  const v1::GetJobResponse job = WaitForJob(server, "planted", Ended);
  EXPECT_EQ(job.job().state(), v1::Job::FAILED) << job.DebugString();
  const std::vector<v1::Trial> trials = ListTrials(server, "planted");
  ASSERT_EQ(trials.size(), 1u);
  EXPECT_EQ(trials[0].state(), v1::Trial::FAILED);
  EXPECT_THAT(trials[0].status_reason(), HasSubstr("'" + log + "' is a symbolic link"));
  std::ifstream file(victim);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(file), {}), "precious\n");
}

TEST_F(TuningJobTest, AJobDirEveryUserMayWriteIsRefusedAtSubmit) {
  ServerProcess server(dir_.path() + "/data");
  server.Start();
  const std::string config = dir_.path() + "/hp.yaml";
  WriteFile(config, SmallConfig(1, 1, 1));
  const std::string open_dir = dir_.path() + "/open";
  std::filesystem::create_directories(open_dir);
  std::filesystem::permissions(open_dir, std::filesystem::perms::all);
  const CommandResult submit = RunCommand(
      Submit(server, "open_job", config, open_dir + "/job", {"/bin/sh", "-c", "true", "trainer"}));
  EXPECT_NE(submit.exit_code, 0);
  EXPECT_THAT(submit.err, HasSubstr("FAILED_PRECONDITION"));
  EXPECT_THAT(submit.err, HasSubstr(open_dir));
  EXPECT_THAT(submit.err, HasSubstr("sticky bit"));
}

TEST_F(TuningJobTest, CrashingTrainerFailsItsTrialsThenTheJobWithTheReason) {
  ServerProcess server(dir_.path() + "/data");
  server.Start();
  const std::string config = dir_.path() + "/hp.yaml";
  WriteFile(config, SmallConfig(8, 2, 3));
  const std::vector<std::string> crashing = {
      "/bin/sh", "-c", "echo step=1 accuracy=0.3; echo 'Traceback: out of memory' >&2; exit 3",
      "trainer"};
  ASSERT_EQ(
      RunCommand(Submit(server, "crashing", config, dir_.path() + "/runs", crashing)).exit_code, 0);
  v1::GetJobResponse job = WaitForJob(server, "crashing", Ended);
  EXPECT_EQ(job.job().state(), v1::Job::FAILED);
  EXPECT_GE(job.trial_counts().failed(), 3);
  EXPECT_THAT(job.job().error_message(), HasSubstr("trials failed (maxFailedTrials=3)"));
  EXPECT_THAT(job.job().error_message(), HasSubstr("master-0 exited with code 3"));
  EXPECT_THAT(job.job().error_message(), HasSubstr("Traceback: out of memory"));
  // A trial still running when the job fails is cancelled with it (two run
  // at once, so on a slow machine a fourth may have started); every other
  // trial failed.
  int failed = 0;
  for (const v1::Trial& trial : ListTrials(server, "crashing")) {
    EXPECT_THAT(trial.state(), ::testing::AnyOf(v1::Trial::FAILED, v1::Trial::CANCELLED))
        << trial.DebugString();
    if (trial.state() == v1::Trial::FAILED) ++failed;
  }
  EXPECT_GE(failed, 3);
}

TEST_F(TuningJobTest, TrainerThatNeverReportsTheObjectiveFails) {
  ServerProcess server(dir_.path() + "/data");
  server.Start();
  const std::string config = dir_.path() + "/hp.yaml";
  WriteFile(config, SmallConfig(1, 1, 0));
  const std::vector<std::string> silent = {"/bin/sh", "-c", "echo step=1 loss=0.3", "trainer"};
  ASSERT_EQ(RunCommand(Submit(server, "silent", config, dir_.path() + "/runs", silent)).exit_code,
            0);
  v1::GetJobResponse job = WaitForJob(server, "silent", Ended);
  EXPECT_EQ(job.job().state(), v1::Job::FAILED);
  const std::vector<v1::Trial> trials = ListTrials(server, "silent");
  ASSERT_EQ(trials.size(), 1u);
  EXPECT_THAT(trials[0].status_reason(),
              HasSubstr("never reported the objective metric \"accuracy\""));
}

TEST_F(TuningJobTest, AJobWithoutMaxTrialsIsWarnedAtSubmitThatItRunsOneTrial) {
  ServerProcess server(dir_.path() + "/data");
  server.Start();
  const std::string config = dir_.path() + "/hp.yaml";
  std::string text = SmallConfig(1, 1, 0);
  const std::string max_trials_line = "    maxTrials: 1\n";
  text.erase(text.find(max_trials_line), max_trials_line.size());
  WriteFile(config, text);
  const CommandResult submitted = RunCommand(Submit(
      server, "onetrial", config, dir_.path() + "/runs", {"/bin/sh", "-c", "echo accuracy=0.5"}));
  ASSERT_EQ(submitted.exit_code, 0) << submitted.err;
  EXPECT_THAT(submitted.out,
              HasSubstr("Warning: " + config +
                        ":3:3: trainingInput.hyperparameters: no "
                        "maxTrials, so the job runs 1 trial (AI Platform's default); set "
                        "maxTrials to tune"));
  const v1::GetJobResponse job = WaitForJob(server, "onetrial", Ended);
  EXPECT_EQ(job.job().state(), v1::Job::SUCCEEDED);
  EXPECT_EQ(ListTrials(server, "onetrial").size(), 1u);

  // A config that sets it gets no warning.
  WriteFile(config, SmallConfig(1, 1, 0));
  const CommandResult quiet = RunCommand(Submit(server, "settrials", config, dir_.path() + "/runs2",
                                                {"/bin/sh", "-c", "echo accuracy=0.5"}));
  ASSERT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_THAT(quiet.out, Not(HasSubstr("Warning")));
  // Ended before the server stops: its agent would keep retrying a stopped
  // server for an hour.
  WaitForJob(server, "settrials", Ended);
}

TEST_F(TuningJobTest, ServerKilledMidJobLosesNothingAndTheJobFinishes) {
  // Restarted below on the same port.
  ServerProcess server(dir_.path() + "/data", RestartablePort());
  server.Start();
  const std::string config = dir_.path() + "/hp.yaml";
  WriteFile(config, SmallConfig(6, 2, 0));
  // Slow enough that trials are running when the server dies.
  const std::vector<std::string> slow = {
      "/bin/sh", "-c", "for i in 1 2 3 4 5 6 7 8; do echo step=$i accuracy=0.$i; sleep 0.3; done",
      "trainer"};
  ASSERT_EQ(RunCommand(Submit(server, "restarted", config, dir_.path() + "/runs", slow)).exit_code,
            0);
  WaitForJob(server, "restarted", [](const v1::GetJobResponse& job) {
    return job.trial_counts().succeeded() >= 2 && job.trial_counts().active() >= 1;
  });
  std::map<int64_t, v1::Trial> before;
  for (const v1::Trial& trial : ListTrials(server, "restarted")) before[trial.id()] = trial;

  const int port = server.port();
  server.Kill();
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // agents keep running, retrying
  ServerProcess restarted(dir_.path() + "/data", port);
  restarted.Start();
  v1::GetJobResponse job = WaitForJob(restarted, "restarted", Ended);
  ASSERT_EQ(job.job().state(), v1::Job::SUCCEEDED) << job.DebugString() << restarted.log();
  EXPECT_EQ(job.trial_counts().succeeded(), 6);

  std::map<int64_t, v1::Trial> after;
  for (const v1::Trial& trial : ListTrials(restarted, "restarted")) after[trial.id()] = trial;
  EXPECT_EQ(after.size(), 6u);
  for (const auto& [id, old] : before) {
    ASSERT_TRUE(after.contains(id));
    const v1::Trial& now = after[id];
    // Every measurement acknowledged before the crash is still there, once.
    ASSERT_GE(now.measurements_size(), old.measurements_size()) << now.DebugString();
    for (int i = 0; i < old.measurements_size(); ++i) {
      EXPECT_EQ(now.measurements(i).step(), old.measurements(i).step());
    }
    if (old.state() == v1::Trial::SUCCEEDED) {
      EXPECT_EQ(now.state(), v1::Trial::SUCCEEDED);
      EXPECT_EQ(now.final_measurement().SerializeAsString(),
                old.final_measurement().SerializeAsString());
    }
  }
  // Trials that ran across the crash reported all 8 steps, none twice.
  for (const auto& [id, trial] : after) {
    EXPECT_EQ(trial.measurements_size(), 8) << trial.DebugString();
  }
}

TEST_F(TuningJobTest, SubmitErrorsNameTheProblem) {
  ServerProcess server(dir_.path() + "/data");
  server.Start();
  const std::string config = dir_.path() + "/bad.yaml";
  WriteFile(config, SmallConfig(2, 1, 0) + "    maxTrails: 3\n");
  CommandResult bad =
      RunCommand(Submit(server, "bad_config", config, dir_.path() + "/runs", {"/bin/true"}));
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_THAT(bad.err, HasSubstr("bad.yaml:16:"));
  EXPECT_THAT(bad.err, HasSubstr("did you mean \"maxTrials\""));

  const std::string good = dir_.path() + "/good.yaml";
  WriteFile(good, SmallConfig(1, 1, 0));
  CommandResult bad_id =
      RunCommand(Submit(server, "1job", good, dir_.path() + "/runs", {"/bin/true"}));
  EXPECT_NE(bad_id.exit_code, 0);
  EXPECT_THAT(bad_id.err, HasSubstr("must start with a letter"));

  ASSERT_EQ(RunCommand(Submit(server, "twice", good, dir_.path() + "/runs",
                              {"/bin/sh", "-c", "echo accuracy=1"}))
                .exit_code,
            0);
  CommandResult duplicate = RunCommand(
      Submit(server, "twice", good, dir_.path() + "/runs", {"/bin/sh", "-c", "echo accuracy=1"}));
  EXPECT_EQ(duplicate.exit_code, 1);
  EXPECT_THAT(duplicate.err, HasSubstr("ALREADY_EXISTS"));
  // The first one runs to its end, so that no agent outlives the server.
  EXPECT_EQ(WaitForJob(server, "twice", Ended).job().state(), v1::Job::SUCCEEDED);

  CommandResult missing = RunCommand(Cli(server, {"jobs", "describe", "no_such_job"}));
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_THAT(missing.err, HasSubstr("NOT_FOUND"));
}

}  // namespace
}  // namespace vernier::testing
