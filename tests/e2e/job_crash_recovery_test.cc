// A tuning job whose `vernier serve` is killed with SIGKILL several times at
// random moments, on every store: the agents of running trials reconnect and
// deliver every measurement once, a trial whose agent died while no server
// was up is failed after the lost-replica timeout, and the job finishes.
// Set VERNIER_CRASH_SEED to replay a failing run's kill times.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <cstdlib>
#include <random>
#include <thread>

#include "absl/strings/str_format.h"
#include "tests/support/store_test.h"
#include "tests/support/study_client.h"
#include "tests/support/test_seed.h"

namespace vernier::testing {
namespace {

using ::testing::HasSubstr;

constexpr char kJob[] = "killed_often";
constexpr int kSteps = 6;
constexpr int kTrials = 6;
constexpr int kKills = 4;

v1::Job SlowJob(const std::string& job_dir) {
  v1::Job job;
  job.set_job_id(kJob);
  job.set_job_dir(job_dir);
  // Reports steps 1..6 over about 1.5 s, so trials are mid-run at a kill.
  job.add_command("/bin/sh");
  job.add_command("-c");
  job.add_command(absl::StrFormat(
      "i=0; while [ $i -lt %d ]; do i=$((i+1)); echo step=$i accuracy=0.$i; sleep 0.25; done",
      kSteps));
  job.add_command("trainer");
  v1::TrainingInput& input = *job.mutable_training_input();
  input.set_scale_tier("BASIC");
  v1::HyperparameterSpec& hyperparameters = *input.mutable_hyperparameters();
  hyperparameters.set_goal(v1::MetricSpec::MAXIMIZE);
  hyperparameters.set_hyperparameter_metric_tag("accuracy");
  hyperparameters.set_max_trials(kTrials);
  hyperparameters.set_max_parallel_trials(2);
  hyperparameters.set_max_failed_trials(3);
  hyperparameters.set_algorithm(v1::RANDOM_SEARCH);
  v1::ParameterSpec& rate = *hyperparameters.add_params();
  rate.set_parameter_name("learning_rate");
  rate.set_type(v1::ParameterSpec::DOUBLE);
  rate.set_min_value(0.001);
  rate.set_max_value(0.5);
  rate.set_scale_type(v1::ParameterSpec::UNIT_LOG_SCALE);
  return job;
}

grpc::Status GetJob(const ServerProcess& server, v1::GetJobResponse* job) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  v1::GetJobRequest request;
  request.set_job_id(kJob);
  return server.JobStub()->GetJob(&context, request, job);
}

bool Ended(const v1::Job& job) {
  return job.state() == v1::Job::SUCCEEDED || job.state() == v1::Job::FAILED ||
         job.state() == v1::Job::CANCELLED;
}

// The master agent of a trial that is running now, or 0.
int64_t RunningAgent(const v1::GetJobResponse& job, int64_t* trial_id) {
  for (const v1::TrialRun& run : job.trial_runs()) {
    for (const v1::ReplicaStatus& replica : run.replicas()) {
      if (replica.state() == v1::ReplicaStatus::RUNNING && replica.pid() > 0) {
        *trial_id = run.trial_id();
        return replica.pid();
      }
    }
  }
  return 0;
}

class JobCrashRecoveryTest : public StoreTest {};

TEST_P(JobCrashRecoveryTest, AgentsReconnectAndALostTrialFailsAcrossRepeatedKills) {
  const uint64_t seed = SeedFrom("VERNIER_CRASH_SEED");
  RecordProperty("seed", std::to_string(seed));
  SCOPED_TRACE(absl::StrFormat("seed %d (rerun with VERNIER_CRASH_SEED=%d)", seed, seed));
  std::mt19937_64 rng(seed);

  std::unique_ptr<ServerProcess> server = MakeServer("start");
  server->Start();
  const int port = server->port();
  {
    grpc::ClientContext context;
    v1::SubmitTrainingJobRequest request;
    *request.mutable_job() = SlowJob(dir_.path() + "/runs");
    v1::Job submitted;
    grpc::Status status = server->JobStub()->SubmitTrainingJob(&context, request, &submitted);
    ASSERT_TRUE(status.ok()) << status.error_message();
  }

  int64_t lost_trial = 0;
  for (int kill = 1; kill <= kKills; ++kill) {
    SCOPED_TRACE(absl::StrFormat("kill %d", kill));
    std::this_thread::sleep_for(std::chrono::milliseconds(200 + rng() % 1000));
    v1::GetJobResponse job;
    ASSERT_TRUE(GetJob(*server, &job).ok()) << server->log();
    if (Ended(job.job())) break;
    server->Kill();
    // Once, an agent dies too while no server is up: nobody reports its end.
    int64_t trial_id = 0;
    if (const int64_t agent = RunningAgent(job, &trial_id); lost_trial == 0 && agent > 0) {
      ASSERT_EQ(killpg(static_cast<pid_t>(agent), SIGKILL), 0);
      lost_trial = trial_id;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(rng() % 300));
    server = MakeServer(absl::StrFormat("restart-%d", kill), port);
    server->Start();
  }

  v1::GetJobResponse job;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (std::chrono::steady_clock::now() < deadline) {
    ASSERT_TRUE(GetJob(*server, &job).ok()) << server->log();
    if (Ended(job.job())) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  ASSERT_EQ(job.job().state(), v1::Job::SUCCEEDED) << job.DebugString() << server->log();

  std::vector<v1::Trial> trials;
  ASSERT_TRUE(StudyClient(server->address()).ListTrials(kJob, true, &trials).ok());
  ASSERT_EQ(trials.size(), static_cast<size_t>(kTrials));
  int succeeded = 0;
  for (const v1::Trial& trial : trials) {
    SCOPED_TRACE(trial.DebugString());
    if (trial.id() == lost_trial && trial.state() == v1::Trial::FAILED) {
      EXPECT_THAT(trial.status_reason(), HasSubstr("without its agent reporting the outcome"));
      continue;
    }
    // Its agent outlived every kill and delivered each step exactly once.
    ASSERT_EQ(trial.state(), v1::Trial::SUCCEEDED);
    ++succeeded;
    ASSERT_EQ(trial.measurements_size(), kSteps);
    for (int i = 0; i < kSteps; ++i) EXPECT_EQ(trial.measurements(i).step(), i + 1);
    EXPECT_EQ(trial.final_measurement().step(), kSteps);
  }
  EXPECT_NE(lost_trial, 0) << "no agent was running at any kill";
  EXPECT_GE(succeeded, kTrials - 1);
  EXPECT_EQ(job.trial_counts().active(), 0);
}

VERNIER_INSTANTIATE_FOR_EVERY_STORE(JobCrashRecoveryTest);

}  // namespace
}  // namespace vernier::testing
