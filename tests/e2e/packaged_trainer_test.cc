// End to end: a packaged trainer as with gcloud (--package-path,
// --module-name, --packages; pythonModule and packageUris in the YAML),
// installed once per job with the submitter's Python, offline, run as
// `python3 -m MODULE ARGS` by every trial, on the local backend and on the
// Slurm test cluster; a package that fails to install fails the job with
// the installer's last lines.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "tests/support/job_client.h"
#include "tests/support/server_process.h"
#include "tests/support/slurm_test_cluster.h"
#include "tests/support/subprocess.h"

namespace vernier::testing {
namespace {

using ::testing::HasSubstr;

// Debian's python3, which has pip and setuptools (scripts/install-deps.sh).
const std::map<std::string, std::string> kSubmitterShell = {{"PATH", "/usr/bin:/bin"}};

class PackagedTrainerTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    std::vector<std::string> args;
    if (GetParam()) {
      const std::string conf = SlurmTestConf();
      if (conf.empty()) GTEST_SKIP() << kNoSlurmTestCluster;
      setenv("SLURM_CONF", conf.c_str(), 1);
      args = {"--scheduler", "slurm"};
    }
    server_ = std::make_unique<ServerProcess>(dir_.path() + "/data", 0, args);
    server_->Start();
    // gcloud's layout: trainer/ with __init__.py and task.py, no setup.py;
    // a further package, a setuptools project it imports.
    WriteFile(dir_.path() + "/src/trainer/__init__.py", "");
    WriteFile(dir_.path() + "/src/trainer/task.py",
              "import argparse\n"
              "import helperlib\n"
              "parser = argparse.ArgumentParser()\n"
              "parser.add_argument('--learning_rate', type=float)\n"
              "parser.add_argument('--epochs', type=int)\n"
              "parser.add_argument('--job-dir')\n"
              "args = parser.parse_args()\n"
              "for epoch in range(args.epochs):\n"
              "    print(f'accuracy={helperlib.scaled(args.learning_rate) + epoch / 100}',\n"
              "          flush=True)\n");
    std::filesystem::create_directories(dir_.path() + "/helper");
    WriteFile(dir_.path() + "/helper/setup.py",
              "from setuptools import setup\n"
              "setup(name='helperlib', version='1.0', py_modules=['helperlib'])\n");
    WriteFile(dir_.path() + "/helper/helperlib.py", "def scaled(x):\n    return 2 * x\n");
    config_ = dir_.path() + "/hptuning.yaml";
    WriteFile(config_, SmallConfig(2, 2, 0));
  }

  std::vector<std::string> SubmitPackaged(const std::string& job_id,
                                          const std::vector<std::string>& packages) {
    std::vector<std::string> argv = Cli(
        *server_, {"jobs", "submit", "training", job_id, "--config", config_, "--job-dir",
                   dir_.path() + "/runs/" + job_id, "--package-path", dir_.path() + "/src/trainer",
                   "--module-name", "trainer.task"});
    for (const std::string& package : packages) {
      argv.push_back("--packages");
      argv.push_back(package);
    }
    argv.insert(argv.end(), {"--", "--epochs", "2"});
    return argv;
  }

  TempDir dir_;
  std::unique_ptr<ServerProcess> server_;
  std::string config_;
};

TEST_P(PackagedTrainerTest, EveryTrialRunsTheModuleFromThePackagesInstalledOnce) {
  const CommandResult submit = RunCommand(SubmitPackaged("pkg_job", {dir_.path() + "/helper"}),
                                          std::chrono::seconds(60), kSubmitterShell);
  ASSERT_EQ(submit.exit_code, 0) << submit.out << submit.err;
  const v1::GetJobResponse job = WaitForJob(*server_, "pkg_job", Ended);
  ASSERT_EQ(job.job().state(), v1::Job::SUCCEEDED) << job.DebugString() << server_->log();
  EXPECT_EQ(job.trial_counts().succeeded(), 2);
  EXPECT_EQ(job.job().command(0), "/usr/bin/python3");
  EXPECT_EQ(job.job().command(2), "trainer.task");
  for (const v1::Trial& trial : ListTrials(*server_, "pkg_job")) {
    EXPECT_EQ(trial.measurement_count(), 2) << trial.DebugString();
  }
  EXPECT_TRUE(std::filesystem::exists(dir_.path() + "/runs/pkg_job/.vernier-packages/helperlib.py"));
  const CommandResult describe = RunCommand(Cli(*server_, {"jobs", "describe", "pkg_job"}));
  EXPECT_THAT(describe.out, HasSubstr("/usr/bin/python3 -m trainer.task"));
  EXPECT_THAT(describe.out, HasSubstr("PYTHONPATH=" + dir_.path() + "/runs/pkg_job/.vernier-packages"));
}

TEST_P(PackagedTrainerTest, APackageThatFailsToInstallFailsTheJobWithWhatPipSaid) {
  WriteFile(dir_.path() + "/broken/setup.py",
            "raise SystemExit('setup.py: the broken package cannot be built')\n");
  const CommandResult submit = RunCommand(SubmitPackaged("pkg_broken", {dir_.path() + "/broken"}),
                                          std::chrono::seconds(60), kSubmitterShell);
  ASSERT_EQ(submit.exit_code, 0) << submit.out << submit.err;
  const v1::GetJobResponse job = WaitForJob(*server_, "pkg_broken", Ended);
  ASSERT_EQ(job.job().state(), v1::Job::FAILED) << job.DebugString();
  EXPECT_THAT(job.job().error_message(), HasSubstr("installing the job's packages"));
  EXPECT_THAT(job.job().error_message(), HasSubstr("the broken package cannot be built"));
  EXPECT_EQ(job.trial_counts().succeeded() + job.trial_counts().failed(), 0);
}

INSTANTIATE_TEST_SUITE_P(Backends, PackagedTrainerTest, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "Slurm" : "Local";
                         });

TEST(PackagedTrainerErrorsTest, WhatIsNotAPackageIsRefusedAtSubmit) {
  TempDir dir;
  ServerProcess server(dir.path() + "/data");
  server.Start();
  const std::string config = dir.path() + "/hptuning.yaml";
  WriteFile(config, SmallConfig(1, 1, 0));
  WriteFile(dir.path() + "/notapackage/README", "");
  const CommandResult refused = RunCommand(
      Cli(server, {"jobs", "submit", "training", "not_pkg", "--config", config, "--job-dir",
                   dir.path() + "/runs", "--package-path", dir.path() + "/notapackage",
                   "--module-name", "trainer.task"}),
      std::chrono::seconds(60), kSubmitterShell);
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_THAT(refused.err, HasSubstr("INVALID_ARGUMENT"));
  EXPECT_THAT(refused.err, HasSubstr("is a folder without setup.py, pyproject.toml or "
                                     "__init__.py"));
  EXPECT_EQ(RunCommand(Cli(server, {"jobs", "describe", "not_pkg"})).exit_code, 1);

  // The module in the YAML, the package there too, the args after `--`.
  WriteFile(dir.path() + "/src/trainer/__init__.py", "");
  WriteFile(dir.path() + "/src/trainer/task.py", "print('accuracy=0.5')\n");
  WriteFile(config, SmallConfig(1, 1, 0) + "  pythonModule: trainer.task\n"
                                            "  packageUris: ['file://" +
                        dir.path() + "/src/trainer']\n");
  const CommandResult from_yaml =
      RunCommand(Cli(server, {"jobs", "submit", "training", "yaml_pkg", "--config", config,
                              "--job-dir", dir.path() + "/runs/yaml_pkg"}),
                 std::chrono::seconds(60), kSubmitterShell);
  ASSERT_EQ(from_yaml.exit_code, 0) << from_yaml.err;
  const v1::GetJobResponse job = WaitForJob(server, "yaml_pkg", Ended);
  EXPECT_EQ(job.job().state(), v1::Job::SUCCEEDED) << job.DebugString() << server.log();
}

}  // namespace
}  // namespace vernier::testing
