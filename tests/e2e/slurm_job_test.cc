// End to end on Slurm: the real `vernier serve --scheduler slurm`, the real
// CLI, agent and example trainer, each trial one sbatch job on the test
// cluster (scripts/slurm-up.sh; scripts/test.sh starts one and sets
// VERNIER_TEST_SLURM_CONF). Skipped when that variable is unset.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "scheduler/slurm/slurm_handle.h"
#include "tests/support/job_client.h"
#include "tests/support/server_process.h"
#include "tests/support/slurm_test_cluster.h"
#include "tests/support/subprocess.h"

namespace vernier::testing {
namespace {

using ::testing::HasSubstr;

class SlurmJobTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string conf = SlurmTestConf();
    if (conf.empty()) GTEST_SKIP() << kNoSlurmTestCluster;
    // The server, its Slurm commands and through sbatch the jobs read it.
    setenv("SLURM_CONF", conf.c_str(), 1);
  }

  TempDir dir_;
};

TEST_F(SlurmJobTest, TuningJobRunsEveryTrialAsASlurmJob) {
  ServerProcess server(dir_.path() + "/data", 0, {"--scheduler", "slurm"});
  server.Start();
  const std::string config = dir_.path() + "/config.yaml";
  WriteFile(config, SmallConfig(/*max_trials=*/3, /*parallel=*/2, /*max_failed=*/0));
  const std::string job_dir = dir_.path() + "/runs";
  const std::vector<std::string> trainer = {"python3", SourcePath("examples/trainer/train.py"),
                                            "--epochs", "2"};

  // The dry run prints the sbatch script of the first trial and creates
  // nothing.
  std::vector<std::string> dry_run = Submit(server, "slurm_job", config, job_dir, trainer);
  dry_run.insert(std::find(dry_run.begin(), dry_run.end(), "--"), "--dry-run");
  const CommandResult preview = RunCommand(dry_run);
  ASSERT_EQ(preview.exit_code, 0) << preview.out << preview.err;
  EXPECT_THAT(preview.out, ::testing::StartsWith("#!/bin/bash\n"));
  EXPECT_THAT(preview.out, HasSubstr("#SBATCH --nodes=1\n"));
  EXPECT_THAT(preview.out,
              HasSubstr("srun --exact --immediate=20 --nodes=1 --ntasks=1 --gpus-per-task=0 "
                        "--job-name=master-0"));
  EXPECT_THAT(preview.out, HasSubstr("--job-dir=" + job_dir + "/1"));
  EXPECT_NE(RunCommand(Cli(server, {"jobs", "describe", "slurm_job"})).exit_code, 0);

  const CommandResult submit = RunCommand(Submit(server, "slurm_job", config, job_dir, trainer));
  ASSERT_EQ(submit.exit_code, 0) << submit.out << submit.err;
  const v1::GetJobResponse job = WaitForJob(server, "slurm_job", Ended);
  ASSERT_EQ(job.job().state(), v1::Job::SUCCEEDED) << job.DebugString() << server.log();
  EXPECT_EQ(job.trial_counts().succeeded(), 3);
  for (const v1::TrialRun& run : job.trial_runs()) {
    EXPECT_THAT(run.backend_handle(), ::testing::StartsWith("slurm:"));
    ASSERT_EQ(run.replicas_size(), 1);
    // The batch script ran the replica as a step and recorded its exit.
    const std::string logs = job_dir + "/" + std::to_string(run.trial_id()) + "/logs/";
    EXPECT_TRUE(std::filesystem::exists(logs + "slurm-job.sh"));
    EXPECT_TRUE(std::filesystem::exists(logs + "master-0.log.gpus"));
    std::ifstream exit_file(logs + "master-0.log.exit");
    std::string exit_status;
    EXPECT_TRUE(std::getline(exit_file, exit_status));
    EXPECT_EQ(exit_status, "0");
  }
  const CommandResult logs = RunCommand(Cli(server, {"jobs", "stream-logs", "slurm_job"}));
  ASSERT_EQ(logs.exit_code, 0) << logs.err;
  EXPECT_THAT(logs.out, HasSubstr("[trial 1 master-0] epoch=1"));
}

// Issue 37: Slurm's own fair share tells the server's users apart by the
// account each one's trials are charged to (every sbatch runs as the
// server's Unix user): dora's trials go to the account the server maps her
// to, the admin's to the account of the admin's own name.
TEST_F(SlurmJobTest, EachUsersTrialsAreChargedToTheirSlurmAccount) {
  ServerProcess server(
      dir_.path() + "/data", 0,
      {"--scheduler", "slurm", "--slurm-account-from-owner", "--slurm-account", "dora=vision"});
  server.Start();
  const CommandResult created =
      RunCommand(Cli(server, {"tokens", "create", "--user", "dora", "--role", "developer"}));
  ASSERT_EQ(created.exit_code, 0) << created.err;
  const std::string dora = created.out.substr(0, created.out.find('\n'));
  const std::string config = dir_.path() + "/config.yaml";
  WriteFile(config, SmallConfig(/*max_trials=*/1, /*parallel=*/1, /*max_failed=*/0));
  const std::vector<std::string> trainer = {"python3", SourcePath("examples/trainer/train.py"),
                                            "--epochs", "1"};
  const CommandResult by_dora =
      RunCommand(Submit(server, "dora_job", config, dir_.path() + "/dora", trainer),
                 std::chrono::seconds(60), {{"VERNIER_TOKEN", dora}});
  ASSERT_EQ(by_dora.exit_code, 0) << by_dora.err;
  const CommandResult by_admin =
      RunCommand(Submit(server, "admin_job", config, dir_.path() + "/admin", trainer));
  ASSERT_EQ(by_admin.exit_code, 0) << by_admin.err;

  for (const std::string job_id : {"dora_job", "admin_job"}) {
    const v1::GetJobResponse job = WaitForJob(server, job_id, Ended);
    ASSERT_EQ(job.job().state(), v1::Job::SUCCEEDED) << job.DebugString() << server.log();
    const std::string account = job_id == "dora_job" ? "vision" : job.job().owner();
    ASSERT_FALSE(account.empty());
    ASSERT_EQ(job.trial_runs_size(), 1);
    absl::StatusOr<scheduler::SlurmHandle> handle =
        scheduler::SlurmHandle::Parse(job.trial_runs(0).backend_handle());
    ASSERT_TRUE(handle.ok()) << handle.status();
    const CommandResult shown = RunCommand({"scontrol", "show", "job", handle->slurm_job_id});
    ASSERT_EQ(shown.exit_code, 0) << shown.err;
    EXPECT_THAT(shown.out, HasSubstr(" Account=" + account + " ")) << shown.out;
  }
}

// The "done when" of issue 5 on Slurm: 1 master, 2 workers, 1 ps with 1 GPU
// each, 2 trials in parallel on the test cluster's 4 fake GPUs. Each trial is
// one sbatch job asking for all 4, so Slurm holds the second one PENDING
// until the first ends (gang waiting), and the parameter server, which never
// exits by itself, is ended once its master is done.
TEST_F(SlurmJobTest, DistributedExampleRunsWithOneGpuPerReplica) {
  ServerProcess server(dir_.path() + "/data", 0, {"--scheduler", "slurm"});
  server.Start();
  const std::string job_dir = dir_.path() + "/dist";
  const CommandResult submit = RunCommand(
      Submit(server, "slurm_dist", SourcePath("examples/hptuning_distributed.yaml"), job_dir,
             {"/usr/bin/python3", SourcePath("examples/trainer/train_distributed.py"), "--steps",
              "10", "--step_seconds", "0.3"}));
  ASSERT_EQ(submit.exit_code, 0) << submit.out << submit.err;

  bool saw_pending_beside_running = false;
  const v1::GetJobResponse job =
      WaitForJob(server, "slurm_dist", [&](const v1::GetJobResponse& polled) {
        bool running = false;
        bool pending = false;
        for (const v1::TrialRun& run : polled.trial_runs()) {
          bool all_running = run.replicas_size() > 0;
          bool all_pending = run.replicas_size() > 0;
          for (const v1::ReplicaStatus& replica : run.replicas()) {
            all_running &= replica.state() == v1::ReplicaStatus::RUNNING;
            all_pending &= replica.state() == v1::ReplicaStatus::PENDING;
          }
          running |= all_running;
          pending |= all_pending && !run.backend_handle().empty();
        }
        saw_pending_beside_running |= running && pending;
        return Ended(polled);
      });
  ASSERT_EQ(job.job().state(), v1::Job::SUCCEEDED) << job.DebugString() << server.log();
  EXPECT_EQ(job.trial_counts().succeeded(), 4);
  EXPECT_TRUE(saw_pending_beside_running)
      << "no trial was ever seen waiting for GPUs while another ran: " << job.DebugString()
      << server.log();

  for (const v1::TrialRun& run : job.trial_runs()) {
    SCOPED_TRACE(absl::StrCat("trial ", run.trial_id()));
    EXPECT_THAT(run.backend_handle(), ::testing::StartsWith("slurm:"));
    ASSERT_EQ(run.replicas_size(), 4);
    std::set<std::string> visible;
    for (const v1::ReplicaStatus& replica : run.replicas()) {
      const std::string name = absl::StrCat(replica.role(), "-", replica.index());
      SCOPED_TRACE(name);
      EXPECT_EQ(replica.state(), v1::ReplicaStatus::EXITED) << replica.DebugString();
      const google::protobuf::Struct seen = ParseJson(
          ReadFile(absl::StrCat(job_dir, "/", run.trial_id(), "/replicas/", name, ".json")));
      const std::string devices = StringField(seen, "CUDA_VISIBLE_DEVICES");
      EXPECT_EQ(devices.find(','), std::string::npos) << "more than one GPU: " << devices;
      visible.insert(devices);
      const google::protobuf::Struct tf_config = ParseJson(StringField(seen, "TF_CONFIG"));
      EXPECT_EQ(StringField(tf_config.fields().at("task").struct_value(), "type"), replica.role());
      const google::protobuf::Struct& cluster = tf_config.fields().at("cluster").struct_value();
      EXPECT_EQ(cluster.fields().at("worker").list_value().values_size(), 2);
      EXPECT_EQ(cluster.fields().at("ps").list_value().values_size(), 1);
      EXPECT_EQ(StringField(seen, "WORLD_SIZE"), "3");
    }
    // Four replicas, four different GPUs: Slurm's global indexes 0 to 3.
    EXPECT_THAT(visible, ::testing::UnorderedElementsAre("0", "1", "2", "3"));
  }
  const CommandResult logs = RunCommand(Cli(server, {"jobs", "stream-logs", "slurm_dist"}));
  ASSERT_EQ(logs.exit_code, 0) << logs.err;
  EXPECT_THAT(logs.out, HasSubstr("[trial 1 master-0] step="));
  const CommandResult describe = RunCommand(Cli(server, {"jobs", "describe", "slurm_dist"}));
  ASSERT_EQ(describe.exit_code, 0) << describe.err;
  EXPECT_THAT(describe.out, HasSubstr("worker-0..1"));
}

}  // namespace
}  // namespace vernier::testing
