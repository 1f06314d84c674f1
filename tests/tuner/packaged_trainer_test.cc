#include "tuner/packaged_trainer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>

#include "tests/support/subprocess.h"

namespace vernier::tuner {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

void WriteTrainerFile(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path) << text;
}

class PackagedTrainerTest : public ::testing::Test {
 protected:
  v1::Job PackagedJob(const std::vector<std::string>& packages) {
    v1::Job job;
    job.set_job_id("packaged");
    job.set_job_dir(dir_.path() + "/runs");
    job.mutable_training_input()->set_python_module("trainer.task");
    for (const std::string& package : packages)
      job.mutable_training_input()->add_package_uris(package);
    (*job.mutable_environment())["PATH"] = "/usr/bin:/bin";
    return job;
  }

  absl::Status Prepare(v1::Job& job) { return PackagedTrainer::Prepare(job, "/usr/bin"); }

  testing::TempDir dir_;
};

TEST_F(PackagedTrainerTest, TheModuleRunsWithTheSubmittersPythonAndThePackagesFirst) {
  WriteTrainerFile(dir_.path() + "/src/trainer/__init__.py", "");
  v1::Job job = PackagedJob({dir_.path() + "/src/trainer"});
  (*job.mutable_environment())["PYTHONPATH"] = "/mine";
  ASSERT_TRUE(Prepare(job).ok());
  // -P: the working directory, where the source may lie, is not on sys.path.
  EXPECT_THAT(job.command(), ElementsAre("/usr/bin/python3", "-P", "-m", "trainer.task"));
  EXPECT_EQ(job.environment().at("PYTHONPATH"), dir_.path() + "/runs/.vernier-packages:/mine");
}

TEST_F(PackagedTrainerTest, WhatCannotBeAPackageIsRefusedNamingIt) {
  WriteTrainerFile(dir_.path() + "/empty/README", "");
  WriteTrainerFile(dir_.path() + "/notes.txt", "");
  const std::pair<std::string, std::string> cases[] = {
      {"trainer/", "\"trainer/\" is not absolute"},
      {"gs://bucket/trainer-0.1.tar.gz", "is not a local path or file:// URL"},
      {dir_.path() + "/absent", "does not exist where the server runs"},
      {dir_.path() + "/empty", "is a folder without setup.py, pyproject.toml or __init__.py"},
      {dir_.path() + "/notes.txt", "is not a wheel (.whl) or a source archive"},
      {"file://" + dir_.path() + "/absent.whl", "does not exist where the server runs"}};
  for (const auto& [uri, problem] : cases) {
    v1::Job job = PackagedJob({uri});
    const absl::Status status = Prepare(job);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << uri;
    EXPECT_THAT(status.message(), HasSubstr("training_input.package_uris[0]: ")) << uri;
    EXPECT_THAT(status.message(), HasSubstr(problem)) << uri;
  }
}

TEST_F(PackagedTrainerTest, ABadModuleACommandOrNoPythonIsRefused) {
  v1::Job job = PackagedJob({});
  job.mutable_training_input()->set_python_module("trainer/task.py");
  absl::Status status = Prepare(job);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("training_input.python_module: \"trainer/task.py\" is "
                                          "not a module name"));
  job = PackagedJob({});
  job.add_command("python3");
  status = Prepare(job);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("job.command: a job with training_input.python_module"));
  job = PackagedJob({});
  (*job.mutable_environment())["PATH"] = dir_.path();
  status = Prepare(job);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(), HasSubstr("no python3 on the job's PATH (" + dir_.path() + ")"));
}

TEST_F(PackagedTrainerTest, InstallsProjectsWithPipAndCopiesBarePackages) {
  // A bare package folder (gcloud's --package-path without setup.py) and a
  // setuptools project given as a further package.
  WriteTrainerFile(dir_.path() + "/src/trainer/__init__.py", "");
  WriteTrainerFile(dir_.path() + "/src/trainer/task.py", "print('task')\n");
  WriteTrainerFile(dir_.path() + "/helper/setup.py",
                   "from setuptools import setup\nsetup(name='helperlib', version='1.0', "
                   "py_modules=['helperlib'])\n");
  WriteTrainerFile(dir_.path() + "/helper/helperlib.py", "VALUE = 42\n");
  v1::Job job = PackagedJob({dir_.path() + "/src/trainer", "file://" + dir_.path() + "/helper"});
  ASSERT_TRUE(Prepare(job).ok());
  const absl::Status installed = PackagedTrainer::Install(
      job, {{"PATH", "/usr/bin:/bin"}, {"HOME", dir_.path()}}, std::chrono::minutes(5));
  ASSERT_TRUE(installed.ok()) << installed;
  const std::string packages = PackagedTrainer::PackagesDir(job);
  EXPECT_TRUE(std::filesystem::exists(packages + "/trainer/task.py"));
  EXPECT_TRUE(std::filesystem::exists(packages + "/helperlib.py"));
  const testing::CommandResult run = testing::RunCommand(
      {"/usr/bin/python3", "-c", "import helperlib, trainer.task; print(helperlib.VALUE)"},
      std::chrono::seconds(60), {{"PYTHONPATH", packages}});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("task\n42\n"));
  // Installing again (a restarted server) starts from an empty folder.
  EXPECT_TRUE(PackagedTrainer::Install(job, {{"PATH", "/usr/bin:/bin"}, {"HOME", dir_.path()}},
                                       std::chrono::minutes(5))
                  .ok());
}

TEST_F(PackagedTrainerTest, AFailingInstallSaysWhatTheInstallerSaid) {
  WriteTrainerFile(dir_.path() + "/broken/setup.py",
                   "raise SystemExit('setup.py: cannot build broken')\n");
  v1::Job job = PackagedJob({dir_.path() + "/broken"});
  ASSERT_TRUE(Prepare(job).ok());
  const absl::Status installed = PackagedTrainer::Install(
      job, {{"PATH", "/usr/bin:/bin"}, {"HOME", dir_.path()}}, std::chrono::minutes(5));
  EXPECT_EQ(installed.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(installed.message(),
              HasSubstr("installing the job's packages with `/usr/bin/python3 -m pip install` "
                        "failed"));
  EXPECT_THAT(installed.message(), HasSubstr("cannot build broken"));
}

TEST_F(PackagedTrainerTest, RequirementsThePythonCannotImportAreNamedAtSubmit) {
  WriteTrainerFile(
      dir_.path() + "/helper/setup.py",
      "from setuptools import setup\n"
      "DEPS = ['no_such_dist_abc>=1.0', 'winonly_xyz; sys_platform == \"win32\"', 'pip']\n"
      "setup(name='helperlib', version='1.0', py_modules=['helperlib'], "
      "install_requires=DEPS)\n");
  WriteTrainerFile(dir_.path() + "/helper/helperlib.py", "VALUE = 42\n");
  v1::Job job = PackagedJob({dir_.path() + "/helper"});
  const absl::Status status = Prepare(job);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(), HasSubstr("the packages require no_such_dist_abc>=1.0 "
                                          "(training_input.package_uris[0] " +
                                          dir_.path() +
                                          "/helper), which the "
                                          "job's python3 (/usr/bin/python3) cannot import"));
  EXPECT_THAT(status.message(), HasSubstr("--find-links DIR"));
  EXPECT_THAT(status.message(), Not(HasSubstr("winonly_xyz")));
}

TEST_F(PackagedTrainerTest, AFindLinksFolderMustBeAnAbsoluteFolder) {
  WriteTrainerFile(dir_.path() + "/src/trainer/__init__.py", "");
  for (const std::string& folder : {std::string("wheels"), dir_.path() + "/absent"}) {
    v1::Job job = PackagedJob({dir_.path() + "/src/trainer"});
    job.mutable_training_input()->add_find_links(folder);
    const absl::Status status = Prepare(job);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << folder;
    EXPECT_THAT(status.message(), HasSubstr("training_input.find_links[0]: \"" + folder)) << folder;
  }
}

TEST_F(PackagedTrainerTest, RequirementsInAFindLinksFolderAreInstalledOffline) {
  // A dependency's wheel, built here, in a folder of its own.
  WriteTrainerFile(dir_.path() + "/dep/setup.py",
                   "from setuptools import setup\nsetup(name='dep_lib_u36', version='2.0', "
                   "py_modules=['dep_lib_u36'])\n");
  WriteTrainerFile(dir_.path() + "/dep/dep_lib_u36.py", "NAME = 'dep'\n");
  const testing::CommandResult built = testing::RunCommand(
      {"/usr/bin/python3", "-m", "pip", "wheel", "--no-index", "--no-deps", "--no-build-isolation",
       "-w", dir_.path() + "/wheels", dir_.path() + "/dep"},
      std::chrono::seconds(120), {{"HOME", dir_.path()}});
  ASSERT_EQ(built.exit_code, 0) << built.out << built.err;
  WriteTrainerFile(dir_.path() + "/helper/setup.py",
                   "from setuptools import setup\nsetup(name='helperlib', version='1.0', "
                   "py_modules=['helperlib'], install_requires=['dep-lib-u36>=1'])\n");
  WriteTrainerFile(dir_.path() + "/helper/helperlib.py",
                   "import dep_lib_u36\nVALUE = dep_lib_u36.NAME\n");
  v1::Job job = PackagedJob({dir_.path() + "/helper"});
  job.mutable_training_input()->add_find_links(dir_.path() + "/wheels");
  ASSERT_TRUE(Prepare(job).ok()) << Prepare(job);
  const absl::Status installed = PackagedTrainer::Install(
      job, {{"PATH", "/usr/bin:/bin"}, {"HOME", dir_.path()}}, std::chrono::minutes(5));
  ASSERT_TRUE(installed.ok()) << installed;
  const testing::CommandResult run = testing::RunCommand(
      {"/usr/bin/python3", "-c", "import helperlib; print(helperlib.VALUE)"},
      std::chrono::seconds(60), {{"PYTHONPATH", PackagedTrainer::PackagesDir(job)}});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "dep\n");
}

TEST_F(PackagedTrainerTest, APythonWithoutPipOrSetuptoolsInstallsWithTheServersTools) {
  // A venv without pip, setuptools or wheel, as the submitter's python3.
  const testing::CommandResult venv = testing::RunCommand(
      {"/usr/bin/python3", "-m", "venv", "--without-pip", dir_.path() + "/venv"});
  ASSERT_EQ(venv.exit_code, 0) << venv.err;
  WriteTrainerFile(dir_.path() + "/helper/setup.py",
                   "from setuptools import setup\nsetup(name='helperlib', version='1.0', "
                   "py_modules=['helperlib'])\n");
  WriteTrainerFile(dir_.path() + "/helper/helperlib.py", "VALUE = 42\n");
  v1::Job job = PackagedJob({dir_.path() + "/helper"});
  const std::string path = dir_.path() + "/venv/bin:/usr/bin:/bin";
  (*job.mutable_environment())["PATH"] = path;
  ASSERT_TRUE(Prepare(job).ok());
  EXPECT_EQ(job.command(0), dir_.path() + "/venv/bin/python3");
  const absl::Status installed = PackagedTrainer::Install(
      job, {{"PATH", path}, {"HOME", dir_.path()}}, std::chrono::minutes(5));
  ASSERT_TRUE(installed.ok()) << installed;
  const testing::CommandResult run = testing::RunCommand(
      {dir_.path() + "/venv/bin/python3", "-c", "import helperlib; print(helperlib.VALUE)"},
      std::chrono::seconds(60), {{"PYTHONPATH", PackagedTrainer::PackagesDir(job)}});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "42\n");
}

TEST_F(PackagedTrainerTest, ACancelledInstallIsCancelledNotFailed) {
  // A stopping server cancels: CANCELLED (the job is not failed for it).
  WriteTrainerFile(dir_.path() + "/helper/setup.py",
                   "from setuptools import setup\nsetup(name='helperlib', version='1.0', "
                   "py_modules=['helperlib'])\n");
  WriteTrainerFile(dir_.path() + "/helper/helperlib.py", "VALUE = 42\n");
  v1::Job job = PackagedJob({dir_.path() + "/helper"});
  ASSERT_TRUE(Prepare(job).ok());
  const std::atomic<bool> cancelled{true};
  const absl::Status installed = PackagedTrainer::Install(
      job, {{"PATH", "/usr/bin:/bin"}, {"HOME", dir_.path()}}, std::chrono::minutes(5), &cancelled);
  EXPECT_EQ(installed.code(), absl::StatusCode::kCancelled) << installed;
  EXPECT_THAT(installed.message(), HasSubstr("was cancelled; killed it"));
}

}  // namespace
}  // namespace vernier::tuner
