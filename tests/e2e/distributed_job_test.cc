// Distributed trials end to end: the real `vernier serve` (with fake GPUs)
// launches every replica of examples/trainer/train_distributed.py with its
// TF_CONFIG, grants GPUs to whole trials at once, ends the parameter
// servers once the master is done, fails or retries a trial whose replica
// fails, and ends every replica on cancel.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "google/protobuf/util/time_util.h"
#include "tests/support/job_client.h"
#include "tests/support/server_process.h"
#include "tests/support/subprocess.h"

namespace vernier::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;

const std::vector<std::string> kReplicaFiles = {"master-0.json", "ps-0.json", "worker-0.json",
                                                "worker-1.json"};

std::vector<std::string> Trainer(const std::vector<std::string>& flags) {
  std::vector<std::string> command = {"/usr/bin/python3",
                                      SourcePath("examples/trainer/train_distributed.py")};
  command.insert(command.end(), flags.begin(), flags.end());
  return command;
}

// A CUSTOM job of 1 master, `workers` workers and 1 parameter server without
// GPUs, one trial at a time.
std::string CpuConfig(int workers, int max_trials, int max_retries) {
  return absl::StrCat(
      "trainingInput:\n"
      "  scaleTier: CUSTOM\n"
      "  masterType: n1-standard-4\n"
      "  workerType: n1-standard-4\n"
      "  workerCount: ",
      workers,
      "\n"
      "  parameterServerType: n1-standard-4\n"
      "  parameterServerCount: 1\n"
      "  scheduling:\n"
      "    maxRetries: ",
      max_retries,
      "\n"
      "  hyperparameters:\n"
      "    goal: MINIMIZE\n"
      "    hyperparameterMetricTag: mse\n"
      "    maxTrials: ",
      max_trials,
      "\n"
      "    maxParallelTrials: 1\n"
      "    maxFailedTrials: 1\n"
      "    algorithm: RANDOM_SEARCH\n"
      "    params:\n"
      "      - parameterName: learning_rate\n"
      "        type: DOUBLE\n"
      "        minValue: 0.05\n"
      "        maxValue: 0.3\n");
}

bool IsLive(const v1::ReplicaStatus& replica) {
  return replica.state() == v1::ReplicaStatus::RUNNING ||
         replica.state() == v1::ReplicaStatus::PENDING;
}

void ExpectEveryReplicaEnded(const v1::TrialRun& run) {
  for (const v1::ReplicaStatus& replica : run.replicas()) {
    EXPECT_EQ(replica.state(), v1::ReplicaStatus::EXITED) << replica.DebugString();
    EXPECT_FALSE(ProcessAlive(replica.pid())) << replica.DebugString();
  }
}

bool AllReplicasOfTheFirstTrialRun(const v1::GetJobResponse& job) {
  if (job.trial_runs_size() == 0) return false;
  for (const v1::ReplicaStatus& replica : job.trial_runs(0).replicas()) {
    if (replica.state() != v1::ReplicaStatus::RUNNING) return false;
  }
  return true;
}

// Fails the test when a GPU is held by the live replicas of two trials;
// returns how many trials have live replicas.
int CheckNoGpuHeldTwice(const v1::GetJobResponse& job) {
  std::map<int, int64_t> holder;  // GPU -> trial
  int live_trials = 0;
  for (const v1::TrialRun& run : job.trial_runs()) {
    bool live = false;
    for (const v1::ReplicaStatus& replica : run.replicas()) {
      if (!IsLive(replica)) continue;
      live = true;
      for (int gpu : replica.gpus()) {
        auto [it, inserted] = holder.emplace(gpu, run.trial_id());
        EXPECT_TRUE(inserted) << "GPU " << gpu << " held by trials " << it->second << " and "
                              << run.trial_id() << " at once: " << job.DebugString();
      }
    }
    live_trials += live ? 1 : 0;
  }
  return live_trials;
}

class DistributedJobTest : public ::testing::Test {
 protected:
  void Submit(ServerProcess& server, const std::string& job_id, const std::string& config_path,
              const std::vector<std::string>& trainer_flags) {
    CommandResult submit = RunCommand(
        testing::Submit(server, job_id, config_path, JobDir(job_id), Trainer(trainer_flags)));
    ASSERT_EQ(submit.exit_code, 0) << submit.err << "\n" << server.log();
  }
  std::string JobDir(const std::string& job_id) const { return dir_.path() + "/jobs/" + job_id; }
  std::string WriteConfig(const std::string& name, const std::string& text) {
    const std::string path = dir_.path() + "/" + name;
    WriteFile(path, text);
    return path;
  }

  // Runs a job of CpuConfig on a server of its own to its end.
  v1::GetJobResponse RunCpuJob(const std::string& job_id, const std::string& config,
                               const std::vector<std::string>& trainer_flags) {
    ServerProcess server(dir_.path() + "/data", 0, WithReplicaPorts({}));
    server.Start();
    Submit(server, job_id, WriteConfig(job_id + ".yaml", config), trainer_flags);
    return WaitForJob(server, job_id, Ended);
  }

  TempDir dir_;
};

// The "done when" of issue 5: 1 master, 2 workers, 1 ps, 1 GPU each, 2
// trials in parallel, with 4 fake GPUs.
TEST_F(DistributedJobTest, ExampleRunsWithFourFakeGpusAndNeverGrantsAGpuTwice) {
  ServerProcess server(dir_.path() + "/data", 0, WithReplicaPorts({"--gpus", "0,1,2,3"}));
  server.Start();
  Submit(server, "dist", SourcePath("examples/hptuning_distributed.yaml"), {"--steps", "10"});

  int most_live_trials = 0;
  std::set<int64_t> pids_seen;
  const v1::GetJobResponse done = WaitForJob(server, "dist", [&](const v1::GetJobResponse& job) {
    for (const v1::TrialRun& run : job.trial_runs()) {
      for (const v1::ReplicaStatus& replica : run.replicas()) {
        if (IsLive(replica) && replica.pid() != 0) pids_seen.insert(replica.pid());
      }
    }
    const int live_trials = CheckNoGpuHeldTwice(job);
    most_live_trials = std::max(most_live_trials, live_trials);
    return Ended(job);
  });
  ASSERT_EQ(done.job().state(), v1::Job::SUCCEEDED) << done.DebugString() << server.log();
  EXPECT_EQ(done.trial_counts().succeeded(), 4) << done.DebugString();
  // A trial needs all 4 GPUs: never were two trials' replicas alive at once.
  EXPECT_EQ(most_live_trials, 1);

  // Each later trial was suggested only once the one before had ended and
  // given its GPUs back: it waited.
  std::vector<v1::Trial> trials = ListTrials(server, "dist");
  ASSERT_EQ(trials.size(), 4u);
  std::sort(trials.begin(), trials.end(), [](const v1::Trial& a, const v1::Trial& b) {
    return google::protobuf::util::TimeUtil::TimestampToNanoseconds(a.start_time()) <
           google::protobuf::util::TimeUtil::TimestampToNanoseconds(b.start_time());
  });
  for (size_t i = 1; i < trials.size(); ++i) {
    EXPECT_GE(trials[i].start_time(), trials[i - 1].end_time())
        << "trial " << trials[i].id() << " started before trial " << trials[i - 1].id() << " ended";
  }

  // Some trials' runs alone (the dashboard's recent trials): those of
  // trials 2 and 4, as GetJob gave them, and none for a trial not run.
  const auto list_runs = [&server](const std::string& job_id, std::vector<int64_t> trial_ids,
                                   v1::ListTrialRunsResponse* response) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    v1::ListTrialRunsRequest request;
    request.set_job_id(job_id);
    for (const int64_t id : trial_ids) request.add_trial_ids(id);
    return server.JobStub()->ListTrialRuns(&context, request, response);
  };
  v1::ListTrialRunsResponse some;
  const grpc::Status listed = list_runs("dist", {4, 2, 99}, &some);
  ASSERT_TRUE(listed.ok()) << listed.error_message();
  ASSERT_EQ(done.trial_runs_size(), 4);
  ASSERT_EQ(some.trial_runs_size(), 2);
  EXPECT_EQ(some.trial_runs(0).SerializeAsString(), done.trial_runs(1).SerializeAsString());
  EXPECT_EQ(some.trial_runs(1).SerializeAsString(), done.trial_runs(3).SerializeAsString());
  for (const auto& [job_id, trial_ids, code, message] :
       std::vector<std::tuple<std::string, std::vector<int64_t>, grpc::StatusCode, std::string>>{
           {"dist",
            {},
            grpc::StatusCode::INVALID_ARGUMENT,
            "trial_ids: give 1 to 1000 trial ids, got 0"},
           {"dist", std::vector<int64_t>(1001, 1), grpc::StatusCode::INVALID_ARGUMENT,
            "trial_ids: give 1 to 1000 trial ids, got 1001"},
           {"dist",
            {1, -3},
            grpc::StatusCode::INVALID_ARGUMENT,
            "trial_ids[1] is -3; trial ids are positive"},
           {"", {1}, grpc::StatusCode::INVALID_ARGUMENT, "job_id is required"},
           {"nope", {1}, grpc::StatusCode::NOT_FOUND, "job \"nope\" not found"}}) {
    v1::ListTrialRunsResponse refused_runs;
    const grpc::Status refused = list_runs(job_id, trial_ids, &refused_runs);
    EXPECT_EQ(refused.error_code(), code) << message;
    EXPECT_THAT(refused.error_message(), HasSubstr(message));
  }

  for (const v1::TrialRun& run : done.trial_runs()) {
    SCOPED_TRACE(absl::StrCat("trial ", run.trial_id()));
    ASSERT_EQ(run.replicas_size(), 4);
    std::set<int> gpus;
    for (const v1::ReplicaStatus& replica : run.replicas()) {
      // Every replica ended, the parameter server too (it never exits by
      // itself): the service ended it once the master was done.
      EXPECT_EQ(replica.state(), v1::ReplicaStatus::EXITED) << replica.DebugString();
      EXPECT_FALSE(ProcessAlive(replica.pid())) << replica.DebugString();
      ASSERT_EQ(replica.gpus_size(), 1) << replica.DebugString();
      gpus.insert(replica.gpus(0));
      EXPECT_GE(replica.port(), 20000);
    }
    EXPECT_THAT(gpus, ElementsAre(0, 1, 2, 3));

    // What each replica saw.
    const std::string replicas_dir = absl::StrCat(JobDir("dist"), "/", run.trial_id(), "/replicas");
    std::set<std::string> visible;
    for (const std::string& file : kReplicaFiles) {
      SCOPED_TRACE(file);
      const google::protobuf::Struct seen = ParseJson(ReadFile(replicas_dir + "/" + file));
      visible.insert(StringField(seen, "CUDA_VISIBLE_DEVICES"));
      EXPECT_EQ(StringField(seen, "CLOUD_ML_TRIAL_ID"), absl::StrCat(run.trial_id()));
      const google::protobuf::Struct tf_config = ParseJson(StringField(seen, "TF_CONFIG"));
      const google::protobuf::Struct& task = tf_config.fields().at("task").struct_value();
      EXPECT_EQ(absl::StrCat(StringField(task, "type"), "-",
                             task.fields().at("index").number_value(), ".json"),
                file);
      const google::protobuf::Struct& cluster = tf_config.fields().at("cluster").struct_value();
      EXPECT_EQ(cluster.fields().at("master").list_value().values_size(), 1);
      EXPECT_EQ(cluster.fields().at("worker").list_value().values_size(), 2);
      EXPECT_EQ(cluster.fields().at("ps").list_value().values_size(), 1);
      EXPECT_EQ(StringField(seen, "WORLD_SIZE"), "3");
    }
    EXPECT_THAT(visible, UnorderedElementsAre("0", "1", "2", "3"));
  }
  for (int64_t pid : pids_seen) EXPECT_FALSE(ProcessAlive(pid)) << "pid " << pid;
}

TEST_F(DistributedJobTest, FailedWorkerFailsTheTrialAndEndsTheOtherReplicas) {
  const v1::GetJobResponse done =
      RunCpuJob("worker_fails", CpuConfig(2, 1, 0),
                {"--steps", "40", "--crash-role", "worker", "--crash-step", "3"});
  ASSERT_EQ(done.job().state(), v1::Job::FAILED) << done.DebugString();
  EXPECT_THAT(done.job().error_message(), HasSubstr("worker-0 exited with code 3"));
  ASSERT_EQ(done.trial_runs_size(), 1);
  ExpectEveryReplicaEnded(done.trial_runs(0));
}

TEST_F(DistributedJobTest, RetryRelaunchesEveryReplicaAndResumesFromTheCheckpoint) {
  // The master crashes at step 7 of the first attempt, after the checkpoint
  // of step 5; the retry resumes from it.
  const v1::GetJobResponse done =
      RunCpuJob("retried", CpuConfig(1, 1, 1),
                {"--steps", "12", "--crash-role", "master", "--crash-step", "7"});
  ASSERT_EQ(done.job().state(), v1::Job::SUCCEEDED) << done.DebugString();
  ASSERT_EQ(done.trial_runs_size(), 1);
  const v1::TrialRun& run = done.trial_runs(0);
  EXPECT_EQ(run.attempt(), 1);
  const std::string master_log = ReadFile(run.replicas(0).log_path());
  EXPECT_THAT(master_log, HasSubstr("crashing at step 7"));
  EXPECT_THAT(master_log, HasSubstr("resuming from the checkpoint of step 5"));
  ExpectEveryReplicaEnded(run);
}

TEST_F(DistributedJobTest, RetriesRunOutAndTheTrialFails) {
  // The worker crashes before any checkpoint, so every attempt fails.
  const v1::GetJobResponse done =
      RunCpuJob("hopeless", CpuConfig(1, 1, 1),
                {"--steps", "12", "--crash-role", "worker", "--crash-step", "2"});
  ASSERT_EQ(done.job().state(), v1::Job::FAILED) << done.DebugString();
  EXPECT_THAT(done.job().error_message(), HasSubstr("(after 1 retries)"));
  ASSERT_EQ(done.trial_runs_size(), 1);
  EXPECT_EQ(done.trial_runs(0).attempt(), 1);
}

TEST_F(DistributedJobTest, CancelEndsEveryReplicaAndFreesTheGpus) {
  ServerProcess server(dir_.path() + "/data", 0, WithReplicaPorts({"--gpus", "0,1,2,3"}));
  server.Start();
  Submit(server, "cancelled", SourcePath("examples/hptuning_distributed.yaml"),
         {"--steps", "1000", "--step_seconds", "0.2"});
  v1::GetJobResponse running = WaitForJob(server, "cancelled", AllReplicasOfTheFirstTrialRun);
  std::vector<int64_t> pids;
  for (const v1::ReplicaStatus& replica : running.trial_runs(0).replicas()) {
    pids.push_back(replica.pid());
  }
  ASSERT_EQ(pids.size(), 4u);
  // jobs describe shows which GPUs each replica was granted.
  CommandResult describe = RunCommand(Cli(server, {"jobs", "describe", "cancelled"}));
  EXPECT_EQ(describe.exit_code, 0) << describe.err;
  for (const v1::ReplicaStatus& replica : running.trial_runs(0).replicas()) {
    ASSERT_EQ(replica.gpus_size(), 1);
    EXPECT_THAT(describe.out, ::testing::ContainsRegex(absl::StrCat(
                                  replica.role(), "-", replica.index(),
                                  " +RUNNING +[^ ]+ +[0-9]+ +", replica.gpus(0), " ")));
  }
  CommandResult cancel = RunCommand(Cli(server, {"jobs", "cancel", "cancelled"}));
  ASSERT_EQ(cancel.exit_code, 0) << cancel.err;
  const v1::GetJobResponse done = WaitForJob(server, "cancelled", Ended);
  EXPECT_EQ(done.job().state(), v1::Job::CANCELLED) << done.DebugString();
  for (int64_t pid : pids) EXPECT_FALSE(ProcessAlive(pid)) << "pid " << pid << " survived";

  // The GPUs are free again: a new job gets all 4.
  Submit(server, "after", SourcePath("examples/hptuning_distributed.yaml"), {"--steps", "3"});
  const v1::GetJobResponse after = WaitForJob(server, "after", Ended);
  EXPECT_EQ(after.job().state(), v1::Job::SUCCEEDED) << after.DebugString();
}

TEST_F(DistributedJobTest, ALostAgentEndsItsTrialAndGivesTheGpusBack) {
  ServerProcess server(dir_.path() + "/data", 0,
                       WithReplicaPorts({"--gpus", "0,1,2,3", "--agent-timeout", "3s"}));
  server.Start();
  const std::string config = WriteConfig(
      "lost.yaml",
      absl::StrReplaceAll(ReadFile(SourcePath("examples/hptuning_distributed.yaml")),
                          {{"maxTrials: 4", "maxTrials: 2"}, {"maxRetries: 1", "maxRetries: 0"}}));
  Submit(server, "lost", config, {"--steps", "30", "--step_seconds", "0.2"});
  v1::GetJobResponse running = WaitForJob(server, "lost", AllReplicasOfTheFirstTrialRun);
  // A worker's agent stops answering (as if its machine hung).
  const int64_t stopped = running.trial_runs(0).replicas(1).pid();
  ASSERT_EQ(kill(static_cast<pid_t>(stopped), SIGSTOP), 0);
  const v1::GetJobResponse done = WaitForJob(server, "lost", Ended);
  EXPECT_EQ(done.trial_counts().failed(), 1) << done.DebugString();
  // The second trial got all 4 GPUs once the first one's replicas ended.
  EXPECT_EQ(done.trial_counts().succeeded(), 1) << done.DebugString() << server.log();
  EXPECT_FALSE(ProcessAlive(stopped));
}

TEST_F(DistributedJobTest, ARestartedServerKeepsTheGrantsOfRunningTrials) {
  auto server = std::make_unique<ServerProcess>(dir_.path() + "/data", 0,
                                                WithReplicaPorts({"--gpus", "0,1,2,3"}));
  server->Start();
  const int port = server->port();
  Submit(*server, "restarted", SourcePath("examples/hptuning_distributed.yaml"),
         {"--steps", "25", "--step_seconds", "0.2"});
  WaitForJob(*server, "restarted", [](const v1::GetJobResponse& job) {
    return job.trial_runs_size() > 0 && job.trial_runs(0).replicas(0).pid() != 0;
  });
  server->Kill();
  server = std::make_unique<ServerProcess>(dir_.path() + "/data", port,
                                           WithReplicaPorts({"--gpus", "0,1,2,3"}));
  server->Start();
  const v1::GetJobResponse done =
      WaitForJob(*server, "restarted", [&](const v1::GetJobResponse& job) {
        CheckNoGpuHeldTwice(job);
        return Ended(job);
      });
  EXPECT_EQ(done.job().state(), v1::Job::SUCCEEDED) << done.DebugString() << server->log();
}

}  // namespace
}  // namespace vernier::testing
