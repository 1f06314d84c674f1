// End to end: a packaged trainer as with gcloud (--package-path,
// --module-name, --packages; pythonModule and packageUris in the YAML),
// copied at submit and installed from that copy once per job with the
// submitter's Python, offline, run as `python3 -P -m MODULE ARGS` by every
// trial, on the local backend and on the Slurm test cluster; a package that
// fails to install fails the job with the installer's last lines. Editing
// the source after submit changes no trial; a Python without pip, wheel or
// setuptools still installs; requirements it cannot import are refused at
// submit, or installed from a --find-links folder.
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
    std::vector<std::string> argv =
        Cli(*server_, {"jobs", "submit", "training", job_id, "--config", config_, "--job-dir",
                       dir_.path() + "/runs/" + job_id, "--package-path",
                       dir_.path() + "/src/trainer", "--module-name", "trainer.task"});
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
  EXPECT_EQ(job.job().command(1), "-P");
  EXPECT_EQ(job.job().command(3), "trainer.task");
  for (const v1::Trial& trial : ListTrials(*server_, "pkg_job")) {
    EXPECT_EQ(trial.measurement_count(), 2) << trial.DebugString();
  }
  EXPECT_TRUE(
      std::filesystem::exists(dir_.path() + "/runs/pkg_job/.vernier-packages/helperlib.py"));
  const CommandResult describe = RunCommand(Cli(*server_, {"jobs", "describe", "pkg_job"}));
  EXPECT_THAT(describe.out, HasSubstr("/usr/bin/python3 -P -m trainer.task"));
  EXPECT_THAT(describe.out,
              HasSubstr("PYTHONPATH=" + dir_.path() + "/runs/pkg_job/.vernier-packages"));
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
  const CommandResult refused =
      RunCommand(Cli(server, {"jobs", "submit", "training", "not_pkg", "--config", config,
                              "--job-dir", dir.path() + "/runs", "--package-path",
                              dir.path() + "/notapackage", "--module-name", "trainer.task"}),
                 std::chrono::seconds(60), kSubmitterShell);
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_THAT(refused.err, HasSubstr("INVALID_ARGUMENT"));
  EXPECT_THAT(refused.err, HasSubstr("is a folder without setup.py, pyproject.toml or "
                                     "__init__.py"));
  EXPECT_EQ(RunCommand(Cli(server, {"jobs", "describe", "not_pkg"})).exit_code, 1);

  // The module in the YAML, the package there too, the args after `--`.
  WriteFile(dir.path() + "/src/trainer/__init__.py", "");
  WriteFile(dir.path() + "/src/trainer/task.py", "print('accuracy=0.5')\n");
  WriteFile(config, SmallConfig(1, 1, 0) +
                        "  pythonModule: trainer.task\n"
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

// A local server, and a one-trial config (hptuning.yaml) in `dir_`.
class PackagedTrainerSnapshotTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = std::make_unique<ServerProcess>(dir_.path() + "/data");
    server_->Start();
    config_ = dir_.path() + "/hptuning.yaml";
    WriteFile(config_, SmallConfig(1, 1, 0));
  }

  TempDir dir_;
  std::unique_ptr<ServerProcess> server_;
  std::string config_;
};

// The trainer prints accuracy=0.25; the edit made after submit would print
// 0.75. The submitter's shell is in the folder that holds trainer/, which
// `python -m` would put first on sys.path.
TEST_F(PackagedTrainerSnapshotTest, EditingThePackageAfterSubmitChangesNoTrial) {
  WriteFile(config_, SmallConfig(3, 1, 0));
  const std::string task = dir_.path() + "/work/trainer/task.py";
  WriteFile(dir_.path() + "/work/trainer/__init__.py", "");
  WriteFile(task, "print('accuracy=0.25', flush=True)\n");
  std::vector<std::string> submit =
      Cli(*server_, {"jobs", "submit", "training", "snap", "--config", config_, "--job-dir",
                     dir_.path() + "/runs/snap", "--package-path", "trainer", "--module-name",
                     "trainer.task"});
  submit.insert(submit.begin(), {"/usr/bin/env", "-C", dir_.path() + "/work"});
  const CommandResult submitted = RunCommand(submit, std::chrono::seconds(60), kSubmitterShell);
  ASSERT_EQ(submitted.exit_code, 0) << submitted.out << submitted.err;
  WriteFile(task, "print('accuracy=0.75', flush=True)\n");

  const v1::GetJobResponse job = WaitForJob(*server_, "snap", Ended);
  ASSERT_EQ(job.job().state(), v1::Job::SUCCEEDED) << job.DebugString() << server_->log();
  EXPECT_EQ(job.job().working_dir(), dir_.path() + "/work");
  const std::vector<v1::Trial> trials = ListTrials(*server_, "snap");
  ASSERT_EQ(trials.size(), 3u);
  for (const v1::Trial& trial : trials) {
    ASSERT_EQ(trial.final_measurement().metrics_size(), 1) << trial.DebugString();
    EXPECT_EQ(trial.final_measurement().metrics(0).value(), 0.25) << trial.DebugString();
  }
  EXPECT_EQ(ReadFile(dir_.path() + "/runs/snap/.vernier-source/0/trainer/task.py"),
            "print('accuracy=0.25', flush=True)\n");
}

// The submitter's python3 is a venv's without pip, wheel or setuptools: the
// setuptools project is built with the server's Python and installed.
TEST_F(PackagedTrainerSnapshotTest, AVenvWithoutWheelOrPipStillInstallsTheProject) {
  const CommandResult venv =
      RunCommand({"/usr/bin/python3", "-m", "venv", "--without-pip", dir_.path() + "/venv"});
  ASSERT_EQ(venv.exit_code, 0) << venv.err;
  const CommandResult no_wheel = RunCommand(
      {dir_.path() + "/venv/bin/python3", "-c", "import wheel"}, std::chrono::seconds(30));
  ASSERT_NE(no_wheel.exit_code, 0) << "the venv has wheel";
  WriteFile(dir_.path() + "/project/setup.py",
            "from setuptools import setup\n"
            "setup(name='trainer', version='1.0', packages=['trainer'])\n");
  WriteFile(dir_.path() + "/project/trainer/__init__.py", "");
  WriteFile(dir_.path() + "/project/trainer/task.py", "print('accuracy=0.5')\n");
  const CommandResult submitted = RunCommand(
      Cli(*server_, {"jobs", "submit", "training", "venv_job", "--config", config_, "--job-dir",
                     dir_.path() + "/runs/venv_job", "--package-path",
                     dir_.path() + "/project/trainer", "--module-name", "trainer.task", "--wait"}),
      std::chrono::seconds(240), {{"PATH", dir_.path() + "/venv/bin:/usr/bin:/bin"}});
  EXPECT_EQ(submitted.exit_code, 0) << submitted.out << submitted.err << server_->log();
  const v1::GetJobResponse job = GetJob(*server_, "venv_job");
  EXPECT_EQ(job.job().state(), v1::Job::SUCCEEDED) << job.DebugString();
  EXPECT_EQ(job.job().command(0), dir_.path() + "/venv/bin/python3");
  EXPECT_THAT(server_->log(), HasSubstr("lacks a build tool"));
}

TEST_F(PackagedTrainerSnapshotTest, RequirementsThePythonLacksAreRefusedOrComeFromFindLinks) {
  WriteFile(dir_.path() + "/project/setup.py",
            "from setuptools import setup\n"
            "setup(name='trainer', version='1.0', packages=['trainer'],\n"
            "      install_requires=['u36_dep_lib>=1.0'])\n");
  WriteFile(dir_.path() + "/project/trainer/__init__.py", "");
  WriteFile(dir_.path() + "/project/trainer/task.py",
            "import u36_dep_lib\nprint(f'accuracy={u36_dep_lib.VALUE}')\n");
  const auto submit = [&](const std::string& job_id, std::vector<std::string> extra) {
    std::vector<std::string> argv =
        Cli(*server_, {"jobs", "submit", "training", job_id, "--config", config_, "--job-dir",
                       dir_.path() + "/runs/" + job_id, "--package-path",
                       dir_.path() + "/project/trainer", "--module-name", "trainer.task"});
    argv.insert(argv.end(), extra.begin(), extra.end());
    return RunCommand(argv, std::chrono::seconds(240), kSubmitterShell);
  };
  const CommandResult refused = submit("missing_dep", {});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_THAT(refused.err, HasSubstr("FAILED_PRECONDITION: training_input.package_uris: the "
                                     "packages require u36_dep_lib>=1.0"));
  EXPECT_THAT(refused.err, HasSubstr("--find-links DIR"));

  // The dependency's wheel in a folder: installed offline with the package.
  WriteFile(dir_.path() + "/dep/setup.py",
            "from setuptools import setup\n"
            "setup(name='u36_dep_lib', version='1.2', py_modules=['u36_dep_lib'])\n");
  WriteFile(dir_.path() + "/dep/u36_dep_lib.py", "VALUE = 0.5\n");
  const CommandResult built =
      RunCommand({"/usr/bin/python3", "-m", "pip", "wheel", "--no-index", "--no-deps",
                  "--no-build-isolation", "-w", dir_.path() + "/wheels", dir_.path() + "/dep"},
                 std::chrono::seconds(120));
  ASSERT_EQ(built.exit_code, 0) << built.out << built.err;
  const CommandResult linked =
      submit("linked_dep", {"--find-links", dir_.path() + "/wheels", "--wait"});
  EXPECT_EQ(linked.exit_code, 0) << linked.out << linked.err << server_->log();
  EXPECT_TRUE(std::filesystem::exists(dir_.path() + "/runs/linked_dep/.vernier-packages/"
                                                    "u36_dep_lib.py"));
}

}  // namespace
}  // namespace vernier::testing
