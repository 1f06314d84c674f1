// Issue 37's "done when" for fair share: two users with equal shares each
// get half the GPUs within one trial's length of contention, on the local
// backend with 4 fake GPUs (`vernier serve --gpus 0,1,2,3`); and a user at
// the quota waits while GPUs are free, and the job says so.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/support/job_client.h"
#include "tests/support/server_process.h"
#include "tests/support/subprocess.h"
#include "vernier/v1/job_service.pb.h"

namespace vernier::testing {
namespace {

using ::testing::HasSubstr;

// What one job's trials hold now, as GetJob shows them.
struct Holdings {
  // GPUs of live (pending or running) replicas.
  int gpus = 0;
  std::set<int64_t> live;
  std::set<int64_t> ended;
  int64_t last_trial = 0;
};

Holdings HoldingsOf(const v1::GetJobResponse& job) {
  Holdings holdings;
  for (const v1::TrialRun& run : job.trial_runs()) {
    bool live = false;
    int gpus = 0;
    for (const v1::ReplicaStatus& replica : run.replicas()) {
      if (replica.state() == v1::ReplicaStatus::RUNNING ||
          replica.state() == v1::ReplicaStatus::PENDING) {
        live = true;
        gpus += replica.gpus_size();
      }
    }
    (live ? holdings.live : holdings.ended).insert(run.trial_id());
    if (live) holdings.gpus += gpus;
    holdings.last_trial = std::max(holdings.last_trial, run.trial_id());
  }
  return holdings;
}

bool AnyEndedAfter(const Holdings& holdings, int64_t trial) {
  return !holdings.ended.empty() && *holdings.ended.rbegin() > trial;
}

class GpuFairShareTest : public ::testing::Test {
 protected:
  void StartServer(std::vector<std::string> flags) {
    server_ = std::make_unique<ServerProcess>(dir_.path() + "/data", 0, WithReplicaPorts(flags));
    server_->Start();
  }

  // `vernier ARGS` with `token` (empty: the server's admin token file).
  CommandResult Vernier(std::vector<std::string> args, const std::string& token = "") {
    std::map<std::string, std::string> env;
    if (!token.empty()) env["VERNIER_TOKEN"] = token;
    return RunCommand(Cli(*server_, std::move(args)), std::chrono::seconds(60), env);
  }

  std::string Developer(const std::string& user) {
    const CommandResult created =
        Vernier({"tokens", "create", "--user", user, "--role", "developer"});
    EXPECT_EQ(created.exit_code, 0) << created.err;
    return FirstLine(created.out);
  }

  // A job of one-GPU trials (BASIC_GPU) of about `steps` half seconds each.
  CommandResult SubmitAs(const std::string& token, const std::string& job_id, int parallel,
                         const std::string& tier_lines = "  scaleTier: BASIC_GPU\n") {
    const std::string trainer = dir_.path() + "/trainer.py";
    WriteFile(trainer,
              "import time\n"
              "for step in range(1, 13):\n"
              "    time.sleep(0.5)\n"
              "    print(f'accuracy={step / 12}', flush=True)\n");
    std::string config = SmallConfig(/*max_trials=*/200, parallel, /*max_failed=*/0);
    const std::string basic = "  scaleTier: BASIC\n";
    config.replace(config.find(basic), basic.size(), tier_lines);
    const std::string path = dir_.path() + "/" + job_id + ".yaml";
    WriteFile(path, config);
    std::vector<std::string> argv = Submit(*server_, job_id, path, dir_.path() + "/jobs/" + job_id,
                                           {"/usr/bin/python3", trainer});
    return RunCommand(argv, std::chrono::seconds(60), {{"VERNIER_TOKEN", token}});
  }

  void TearDown() override {
    if (server_ == nullptr) return;
    // Cancelled and waited for: a server that stops leaves its trials
    // running, and their agents then retry the gone server for an hour.
    for (const char* job : {"alice_job", "bob_job"}) {
      if (Vernier({"jobs", "cancel", job}).exit_code != 0) continue;
      WaitForJob(*server_, job, Ended, std::chrono::seconds(60));
    }
  }

  TempDir dir_;
  std::unique_ptr<ServerProcess> server_;
};

TEST_F(GpuFairShareTest, TwoUsersWithEqualSharesEachGetHalfTheGpusWithinOneTrial) {
  StartServer({"--gpus", "0,1,2,3"});
  const std::string alice = Developer("alice");
  const std::string bob = Developer("bob");

  // alice's job takes every GPU.
  const CommandResult first = SubmitAs(alice, "alice_job", /*parallel=*/4);
  ASSERT_EQ(first.exit_code, 0) << first.err << server_->log();
  WaitForJob(*server_, "alice_job",
             [](const v1::GetJobResponse& job) { return HoldingsOf(job).gpus == 4; });

  // bob's job waits for GPUs: contention starts.
  const CommandResult second = SubmitAs(bob, "bob_job", /*parallel=*/4);
  ASSERT_EQ(second.exit_code, 0) << second.err << server_->log();
  const v1::GetJobResponse waiting = WaitForJob(*server_, "bob_job", [](const auto& job) {
    return !job.job().waiting_for_gpus().empty() || HoldingsOf(job).gpus > 0;
  });
  EXPECT_THAT(waiting.job().waiting_for_gpus(), HasSubstr("in the queue")) << waiting.DebugString();
  // The trials alice runs as contention starts; the ones she starts later
  // have higher ids.
  const int64_t running_at_contention = HoldingsOf(GetJob(*server_, "alice_job")).last_trial;

  // Within one trial's length: bob holds half the GPUs before any trial
  // alice started after contention began has ended.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(180);
  while (true) {
    const Holdings a = HoldingsOf(GetJob(*server_, "alice_job"));
    const Holdings b = HoldingsOf(GetJob(*server_, "bob_job"));
    ASSERT_LE(b.gpus, 2);
    if (b.gpus == 2) break;
    ASSERT_FALSE(AnyEndedAfter(a, running_at_contention))
        << "a trial alice started after bob began waiting ended before bob held half the GPUs; "
           "bob holds "
        << b.gpus << "\n"
        << server_->log();
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << server_->log();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }

  // The split stays half and half while both wait: through a whole
  // generation of alice's trials, neither ever holds more than 2.
  const int64_t generation = HoldingsOf(GetJob(*server_, "alice_job")).last_trial;
  int polls = 0;
  while (true) {
    const v1::GetJobResponse alice_job = GetJob(*server_, "alice_job");
    const Holdings a = HoldingsOf(alice_job);
    const Holdings b = HoldingsOf(GetJob(*server_, "bob_job"));
    ASSERT_LE(a.gpus, 2) << alice_job.DebugString();
    ASSERT_LE(b.gpus, 2);
    ++polls;
    if (AnyEndedAfter(a, generation)) break;
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << server_->log();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_GT(polls, 10);
  // And both hold their half again (a freed GPU goes back to its user).
  WaitForJob(*server_, "bob_job", [&](const v1::GetJobResponse& job) {
    return HoldingsOf(job).gpus == 2 && HoldingsOf(GetJob(*server_, "alice_job")).gpus == 2;
  });

  // Each job says where its waiting trials stand and why: the CLI, and
  // the JSON view, to its owner.
  const v1::GetJobResponse job = WaitForJob(
      *server_, "alice_job", [](const auto& job) { return !job.job().waiting_for_gpus().empty(); });
  EXPECT_GT(job.job().gpu_queue_position(), 0);
  const CommandResult described = Vernier({"jobs", "describe", "alice_job"}, alice);
  ASSERT_EQ(described.exit_code, 0) << described.err;
  EXPECT_THAT(described.out, HasSubstr("waiting for GPUs: "));
  EXPECT_THAT(described.out, HasSubstr(" in the queue; "));
  const CommandResult json = Vernier({"jobs", "describe", "bob_job", "--format", "json"}, bob);
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_THAT(json.out, HasSubstr("\"waitingForGpus\""));
  EXPECT_THAT(json.out, HasSubstr("\"gpuQueuePosition\""));
}

TEST_F(GpuFairShareTest, AUserAtTheQuotaWaitsWhileGpusAreFreeAndTheJobSaysSo) {
  StartServer({"--gpus", "0,1,2", "--gpu-quota-per-user", "1"});
  const std::string alice = Developer("alice");
  const std::string bob = Developer("bob");

  // A trial that needs more than the quota could never start: refused.
  const CommandResult big = SubmitAs(alice, "big_job", 1,
                                     "  scaleTier: CUSTOM\n"
                                     "  masterType: n1-standard-8\n"
                                     "  masterConfig:\n"
                                     "    acceleratorConfig:\n"
                                     "      count: 2\n"
                                     "      type: NVIDIA_TESLA_T4\n");
  EXPECT_NE(big.exit_code, 0);
  EXPECT_THAT(big.err, HasSubstr("a trial needs 2 GPUs but alice may hold at most 1 GPU "
                                 "(`vernier serve --gpu-quota-per-user 1`)"));

  const CommandResult submitted = SubmitAs(alice, "alice_job", /*parallel=*/2);
  ASSERT_EQ(submitted.exit_code, 0) << submitted.err << server_->log();
  const v1::GetJobResponse waiting = WaitForJob(*server_, "alice_job", [](const auto& job) {
    return HoldingsOf(job).gpus == 1 && !job.job().waiting_for_gpus().empty();
  });
  EXPECT_EQ(waiting.job().waiting_for_gpus(),
            "1st in the queue; alice holds 1 of a quota of 1 GPU (--gpu-quota-per-user 1); the "
            "trial needs 1");
  const CommandResult described = Vernier({"jobs", "describe", "alice_job"}, alice);
  EXPECT_THAT(described.out,
              HasSubstr("waiting for GPUs: 1st in the queue; alice holds 1 of a quota of 1 GPU"));

  // bob is not held back by alice's quota: he gets a free GPU while alice
  // still waits with 2 of them free.
  const CommandResult other = SubmitAs(bob, "bob_job", /*parallel=*/1);
  ASSERT_EQ(other.exit_code, 0) << other.err;
  WaitForJob(*server_, "bob_job",
             [](const v1::GetJobResponse& job) { return HoldingsOf(job).gpus == 1; });
  EXPECT_LE(HoldingsOf(GetJob(*server_, "alice_job")).gpus, 1);
}

}  // namespace
}  // namespace vernier::testing
