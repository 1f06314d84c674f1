// End to end: the trial's environment (docs/jobs.md, "The trial's
// environment"). The real CLI sends the submitter's PATH, PYTHONPATH,
// VIRTUAL_ENV, CONDA_PREFIX and LD_LIBRARY_PATH, --env and --env-file; the
// YAML's masterConfig.env adds the role's; the real `vernier serve` adds
// nothing of its own environment beyond the documented few, on the local
// backend and on the Slurm test cluster; secrets are not shown back.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include "tests/support/job_client.h"
#include "tests/support/server_process.h"
#include "tests/support/slurm_test_cluster.h"
#include "tests/support/subprocess.h"

namespace vernier::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// Writes its environment to JOB_DIR/N/env.txt and reports an accuracy.
const std::vector<std::string> kEnvDumpingTrainer = {
    "/bin/sh", "-c",
    "for a; do case $a in --job-dir=*) d=${a#--job-dir=};; esac; done; mkdir -p \"$d\"; "
    "env > \"$d/env.txt\"; echo accuracy=0.5",
    "trainer"};

class TrialEnvironmentTest : public ::testing::TestWithParam<bool> {
 protected:
  void RunJob() {
    const bool slurm = GetParam();
    std::vector<std::string> server_args;
    if (slurm) {
      const std::string conf = SlurmTestConf();
      if (conf.empty()) GTEST_SKIP() << kNoSlurmTestCluster;
      setenv("SLURM_CONF", conf.c_str(), 1);
      server_args = {"--scheduler", "slurm"};
    }
    // The server's own variables, which no trial may see.
    setenv("SERVER_ONLY_SECRET", "server-secret", 1);
    setenv("PYTHONPATH", "/the/servers/python", 1);
    ServerProcess server(dir_.path() + "/data", 0, server_args);
    server.Start();
    unsetenv("SERVER_ONLY_SECRET");
    unsetenv("PYTHONPATH");

    const std::string config = dir_.path() + "/hptuning.yaml";
    WriteFile(config, SmallConfig(1, 1, 0) +
                          "  masterConfig:\n"
                          "    env:\n"
                          "      ROLE_VARIABLE: for the master\n");
    const std::string env_file = dir_.path() + "/trial.env";
    WriteFile(env_file, "# from the file\nFROM_FILE='file value'\nOVERRIDDEN=file\n");
    const std::string job_dir = dir_.path() + "/runs";
    std::vector<std::string> submit =
        Cli(server, {"jobs", "submit", "training", "env_job", "--config", config, "--job-dir",
                     job_dir, "--env", "OVERRIDDEN=flag", "--env", "HF_TOKEN=hf_very_secret",
                     "--env-file", env_file});
    submit.push_back("--");
    submit.insert(submit.end(), kEnvDumpingTrainer.begin(), kEnvDumpingTrainer.end());
    const std::map<std::string, std::string> submitter = {
        {"PYTHONPATH", "/the/submitters/python"}, {"VIRTUAL_ENV", "/the/submitters/venv"},
        {"SUBMITTER_OTHER", "not sent"}};

    // The dry run shows the environment, secrets hidden.
    std::vector<std::string> dry_run = submit;
    dry_run.insert(std::find(dry_run.begin(), dry_run.end(), "--"), "--dry-run");
    const CommandResult preview = RunCommand(dry_run, std::chrono::seconds(60), submitter);
    ASSERT_EQ(preview.exit_code, 0) << preview.out << preview.err;
    EXPECT_THAT(preview.out, HasSubstr("PYTHONPATH=/the/submitters/python"));
    EXPECT_THAT(preview.out, HasSubstr("ROLE_VARIABLE="));
    EXPECT_THAT(preview.out, HasSubstr("HF_TOKEN=[redacted]"));
    EXPECT_THAT(preview.out, Not(HasSubstr("hf_very_secret")));
    EXPECT_THAT(preview.out, Not(HasSubstr("server-secret")));

    const CommandResult submitted = RunCommand(submit, std::chrono::seconds(60), submitter);
    ASSERT_EQ(submitted.exit_code, 0) << submitted.out << submitted.err;
    const v1::GetJobResponse job = WaitForJob(server, "env_job", Ended);
    ASSERT_EQ(job.job().state(), v1::Job::SUCCEEDED) << job.DebugString() << server.log();

    const std::string env = "\n" + ReadFile(job_dir + "/1/env.txt");
    EXPECT_THAT(env, HasSubstr("\nPYTHONPATH=/the/submitters/python\n"));
    EXPECT_THAT(env, HasSubstr("\nVIRTUAL_ENV=/the/submitters/venv\n"));
    EXPECT_THAT(env, HasSubstr("\nFROM_FILE=file value\n"));
    EXPECT_THAT(env, HasSubstr("\nOVERRIDDEN=flag\n"));
    EXPECT_THAT(env, HasSubstr("\nHF_TOKEN=hf_very_secret\n"));
    EXPECT_THAT(env, HasSubstr("\nROLE_VARIABLE=for the master\n"));
    EXPECT_THAT(env, HasSubstr("\nCLOUD_ML_JOB_ID=env_job\n"));
    EXPECT_THAT(env, HasSubstr("TF_CONFIG="));
    EXPECT_THAT(env, HasSubstr("\nHOME="));
    EXPECT_THAT(env, Not(HasSubstr("SERVER_ONLY_SECRET")));
    EXPECT_THAT(env, Not(HasSubstr("/the/servers/python")));
    EXPECT_THAT(env, Not(HasSubstr("SUBMITTER_OTHER")));
    EXPECT_THAT(env, Not(HasSubstr("SLURM_CONF")));
    EXPECT_THAT(env, Not(HasSubstr("VERNIER_AGENT_TOKEN_FILE")));

    // Whoever reads the job sees the environment without its secrets.
    EXPECT_EQ(job.job().environment().at("HF_TOKEN"), "[redacted]");
    EXPECT_EQ(job.job().environment().at("PYTHONPATH"), "/the/submitters/python");
    const CommandResult describe = RunCommand(Cli(server, {"jobs", "describe", "env_job"}));
    ASSERT_EQ(describe.exit_code, 0) << describe.err;
    EXPECT_THAT(describe.out, HasSubstr("Environment:"));
    EXPECT_THAT(describe.out, HasSubstr("VIRTUAL_ENV=/the/submitters/venv"));
    EXPECT_THAT(describe.out, HasSubstr("HF_TOKEN=[redacted]"));
    EXPECT_THAT(describe.out, Not(HasSubstr("hf_very_secret")));
    EXPECT_THAT(server.log(), Not(HasSubstr("hf_very_secret")));
  }

  TempDir dir_;
};

TEST_P(TrialEnvironmentTest, TrialsGetTheSubmittersEnvironmentAndNotTheServers) { RunJob(); }

INSTANTIATE_TEST_SUITE_P(Backends, TrialEnvironmentTest, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "Slurm" : "Local";
                         });

TEST(TrialEnvironmentErrorsTest, ABadVariableIsRefusedBeforeAnythingIsSent) {
  TempDir dir;
  ServerProcess server(dir.path() + "/data");
  server.Start();
  const std::string config = dir.path() + "/hptuning.yaml";
  WriteFile(config, SmallConfig(1, 1, 0));
  const CommandResult reserved = RunCommand(Cli(
      server, {"jobs", "submit", "training", "bad_env", "--config", config, "--job-dir",
               dir.path() + "/runs", "--env", "TF_CONFIG={}", "--", "true"}));
  EXPECT_NE(reserved.exit_code, 0);
  EXPECT_THAT(reserved.err, HasSubstr("--env: TF_CONFIG is set by Vernier for every replica"));
  const std::string env_file = dir.path() + "/bad.env";
  WriteFile(env_file, "GOOD=1\nBAD LINE\n");
  const CommandResult bad_file = RunCommand(Cli(
      server, {"jobs", "submit", "training", "bad_env", "--config", config, "--job-dir",
               dir.path() + "/runs", "--env-file", env_file, "--", "true"}));
  EXPECT_NE(bad_file.exit_code, 0);
  EXPECT_THAT(bad_file.err, HasSubstr(env_file + ":2: expected NAME=VALUE"));
  EXPECT_EQ(RunCommand(Cli(server, {"jobs", "describe", "bad_env"})).exit_code, 1);
}

}  // namespace
}  // namespace vernier::testing
