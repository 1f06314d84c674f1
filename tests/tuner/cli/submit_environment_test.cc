#include "tuner/cli/submit_environment.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "tests/support/subprocess.h"

namespace vernier::cli {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

TEST(SubmitEnvironmentTest, TakesThePathsAndEnvironmentsOfTheSubmittersShellOnly) {
  const char* const shell[] = {"PATH=/venv/bin:/usr/bin",
                               "PYTHONPATH=/src",
                               "VIRTUAL_ENV=/venv",
                               "CONDA_PREFIX=/conda",
                               "LD_LIBRARY_PATH=/cuda/lib64",
                               "HOME=/home/dora",
                               "VERNIER_TOKEN=t",
                               "AWS_SECRET_ACCESS_KEY=k",
                               nullptr};
  EXPECT_THAT(SubmitterVariables(shell),
              ElementsAre(Pair("CONDA_PREFIX", "/conda"), Pair("LD_LIBRARY_PATH", "/cuda/lib64"),
                          Pair("PATH", "/venv/bin:/usr/bin"), Pair("PYTHONPATH", "/src"),
                          Pair("VIRTUAL_ENV", "/venv")));
}

TEST(SubmitEnvironmentTest, EnvFlagsWinOverTheFileWhichWinsOverTheShell) {
  vernier::testing::TempDir dir;
  const std::string path = dir.path() + "/trial.env";
  std::ofstream(path) << "# the trial's settings\n"
                         "\n"
                         "export WANDB_MODE=offline\n"
                         "LEVEL='file'\n"
                         "QUOTED=\"a b\"\r\n"
                         "EMPTY=\n"
                         "PATH=/file/bin\n";
  absl::StatusOr<std::map<std::string, std::string>> environment = JobEnvironment(
      {{"PATH", "/shell/bin"}, {"PYTHONPATH", "/src"}}, path, {"LEVEL=flag", "WITH_EQUALS=a=b"});
  ASSERT_TRUE(environment.ok()) << environment.status();
  EXPECT_THAT(*environment,
              ElementsAre(Pair("EMPTY", ""), Pair("LEVEL", "flag"), Pair("PATH", "/file/bin"),
                          Pair("PYTHONPATH", "/src"), Pair("QUOTED", "a b"),
                          Pair("WANDB_MODE", "offline"), Pair("WITH_EQUALS", "a=b")));
}

TEST(SubmitEnvironmentTest, AFlagThatIsNotAnAssignmentOrAValidNameIsRefused) {
  absl::StatusOr<std::map<std::string, std::string>> missing = JobEnvironment({}, "", {"DEBUG"});
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(missing.status().message(), HasSubstr("--env: expected NAME=VALUE, got \"DEBUG\""));
  absl::StatusOr<std::map<std::string, std::string>> bad_name = JobEnvironment({}, "", {"1X=2"});
  EXPECT_THAT(bad_name.status().message(), HasSubstr("--env: \"1X\" is not a variable name"));
  absl::StatusOr<std::map<std::string, std::string>> vernier =
      JobEnvironment({}, "", {"TF_CONFIG={}"});
  EXPECT_THAT(vernier.status().message(),
              HasSubstr("--env: TF_CONFIG is set by Vernier for every replica"));
}

TEST(SubmitEnvironmentTest, AnEnvFileErrorNamesTheFileAndLine) {
  vernier::testing::TempDir dir;
  const std::string path = dir.path() + "/trial.env";
  std::ofstream(path) << "A=1\n# fine\nnot an assignment\n";
  absl::StatusOr<std::map<std::string, std::string>> environment = ReadEnvFile(path);
  EXPECT_EQ(environment.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(environment.status().message(),
              HasSubstr(path + ":3: expected NAME=VALUE, got \"not an assignment\""));
  std::ofstream(path) << "RANK=0\n";
  EXPECT_THAT(ReadEnvFile(path).status().message(), HasSubstr(path + ":1: RANK is set by Vernier"));
  absl::StatusOr<std::map<std::string, std::string>> absent =
      ReadEnvFile(dir.path() + "/absent.env");
  EXPECT_EQ(absent.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(absent.status().message(), HasSubstr("--env-file " + dir.path() + "/absent.env"));
}

}  // namespace
}  // namespace vernier::cli
