// End to end: the CLI as a user coming from gcloud meets it: labels and
// gcloud's metadata flags kept and shown, `jobs list --filter`, a job dir
// that is a bucket URL refused, --server at the HTTP port named as such, a
// failed job's study left INACTIVE, and a failure's traceback kept line by
// line in `--wait`, `trials list`, `trials describe` and `jobs describe`.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>

#include "tests/support/job_client.h"
#include "tests/support/server_process.h"
#include "tests/support/subprocess.h"

namespace vernier::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class CliUserPathTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = std::make_unique<ServerProcess>(dir_.path() + "/data");
    server_->Start();
    config_ = dir_.path() + "/hptuning.yaml";
    WriteFile(config_, SmallConfig(1, 1, 0));
  }

  // `vernier jobs submit training JOB_ID --config CONFIG --job-dir DIR FLAGS
  // -- COMMAND`.
  std::vector<std::string> SubmitWith(const std::string& job_id,
                                      const std::vector<std::string>& flags,
                                      const std::vector<std::string>& command) {
    std::vector<std::string> argv =
        Cli(*server_, {"jobs", "submit", "training", job_id, "--config", config_, "--job-dir",
                       dir_.path() + "/runs/" + job_id});
    argv.insert(argv.end(), flags.begin(), flags.end());
    argv.push_back("--");
    argv.insert(argv.end(), command.begin(), command.end());
    return argv;
  }

  TempDir dir_;
  std::unique_ptr<ServerProcess> server_;
  std::string config_;
};

TEST_F(CliUserPathTest, LabelsAndGcloudMetadataAreKeptShownAndFiltered) {
  std::vector<std::string> submit =
      SubmitWith("labelled",
                 {"--labels", "team=vision,owner=dora", "--region", "us-central1",
                  "--runtime-version", "2.11", "--python-version", "3.7"},
                 {"python3", "-c", "print('accuracy=0.5')"});
  const CommandResult submitted = RunCommand(submit);
  ASSERT_EQ(submitted.exit_code, 0) << submitted.out << submitted.err;
  EXPECT_THAT(submitted.out, HasSubstr("Warning: --region us-central1 is stored and shown by "
                                       "`vernier jobs describe`, and changes nothing here"));
  EXPECT_THAT(submitted.out, HasSubstr("Warning: --python-version 3.7 is stored"));

  // The YAML's top-level labels, beside trainingInput.
  WriteFile(dir_.path() + "/labelled.yaml", "labels:\n  team: nlp\n" + SmallConfig(1, 1, 0));
  const CommandResult from_yaml = RunCommand(
      Submit(*server_, "yaml_labels", dir_.path() + "/labelled.yaml",
             dir_.path() + "/runs/yaml_labels", {"python3", "-c", "print('accuracy=0.5')"}));
  ASSERT_EQ(from_yaml.exit_code, 0) << from_yaml.out << from_yaml.err;

  const CommandResult describe = RunCommand(Cli(*server_, {"jobs", "describe", "labelled"}));
  ASSERT_EQ(describe.exit_code, 0) << describe.err;
  EXPECT_THAT(describe.out, HasSubstr("Labels:"));
  EXPECT_THAT(describe.out, HasSubstr("owner=dora,team=vision"));
  EXPECT_THAT(describe.out, HasSubstr("us-central1 (no effect)"));
  EXPECT_THAT(describe.out, HasSubstr("2.11 (no effect)"));

  CommandResult list =
      RunCommand(Cli(*server_, {"jobs", "list", "--filter", "labels.team=vision"}));
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_THAT(list.out, HasSubstr("labelled"));
  EXPECT_THAT(list.out, Not(HasSubstr("yaml_labels")));
  list = RunCommand(Cli(*server_, {"jobs", "list", "--filter", "labels.team=nlp"}));
  EXPECT_THAT(list.out, HasSubstr("yaml_labels"));
  EXPECT_THAT(list.out, Not(HasSubstr("labelled ")));
  list = RunCommand(Cli(*server_, {"jobs", "list", "--filter", "labels.team=none"}));
  EXPECT_THAT(list.out, HasSubstr("No jobs match the filter."));
  list = RunCommand(Cli(*server_, {"jobs", "list", "--filter", "owner=dora"}));
  EXPECT_EQ(list.exit_code, 1);
  EXPECT_THAT(list.err, HasSubstr("--filter \"owner=dora\": expected labels.KEY=VALUE"));

  // Labels gcloud would refuse are refused here too, naming the label.
  submit = SubmitWith("bad_label", {"--labels", "Team=x"}, {"python3", "-c", "pass"});
  const CommandResult bad = RunCommand(submit);
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_THAT(bad.err, HasSubstr("INVALID_ARGUMENT: job.labels[\"Team\"]"));
  // Ended before the server stops: their agents would keep retrying a
  // stopped server for an hour.
  WaitForJob(*server_, "labelled", Ended);
  WaitForJob(*server_, "yaml_labels", Ended);
}

TEST_F(CliUserPathTest, AJobDirThatIsABucketUrlIsRefused) {
  const CommandResult refused =
      RunCommand(Submit(*server_, "bucket", config_, "gs://bucket/x", {"python3", "-c", "pass"}));
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_THAT(refused.err, HasSubstr("--job-dir \"gs://bucket/x\": a URL"));
  EXPECT_FALSE(std::filesystem::exists("gs:"));
}

TEST_F(CliUserPathTest, TheHttpPortIsNamedAsSuch) {
  const std::regex url("dashboard and HTTP API at https?://([^/\\s]+)/");
  std::smatch match;
  const std::string log = server_->log();
  ASSERT_TRUE(std::regex_search(log, match, url)) << log;
  const std::string http_address = match[1];
  const CommandResult wrong =
      RunCommand({BinaryPath("vernier"), "jobs", "list", "--server", http_address});
  EXPECT_EQ(wrong.exit_code, 1);
  EXPECT_THAT(wrong.err, HasSubstr("that port answers HTTP/1.1, so it is `vernier serve`'s HTTP "
                                   "port"));
  EXPECT_THAT(wrong.err, Not(HasSubstr("is `vernier serve` running?")));
}

TEST_F(CliUserPathTest, AFailureKeepsItsTracebackLinesAndItsStudyIsNotCompleted) {
  const std::string trainer = dir_.path() + "/fails.py";
  WriteFile(trainer,
            "def load():\n"
            "    raise ModuleNotFoundError(\"No module named 'u36_missing'\")\n"
            "load()\n");
  // maxFailedTrials=1: the job fails with the trial's reason as its error.
  WriteFile(config_, SmallConfig(1, 1, 1));
  const CommandResult waited =
      RunCommand(SubmitWith("fails", {"--wait"}, {"python3", trainer}), std::chrono::seconds(240));
  EXPECT_EQ(waited.exit_code, 1) << waited.out << waited.err;
  // --wait: the reason under the trial's line, a line each.
  EXPECT_THAT(waited.out, HasSubstr("trial 1 FAILED"));
  EXPECT_THAT(waited.out, HasSubstr("\n  Traceback (most recent call last):\n"));
  EXPECT_THAT(waited.out, HasSubstr("\n  ModuleNotFoundError: No module named 'u36_missing'\n"));

  const CommandResult trials = RunCommand(Cli(*server_, {"trials", "list", "fails"}));
  ASSERT_EQ(trials.exit_code, 0) << trials.err;
  EXPECT_THAT(trials.out, HasSubstr(" Traceback (most recent call last):\n"));
  EXPECT_THAT(trials.out, HasSubstr(" ModuleNotFoundError: No module named 'u36_missing'\n"));
  const CommandResult trial = RunCommand(Cli(*server_, {"trials", "describe", "fails", "1"}));
  EXPECT_THAT(trial.out, HasSubstr(" Traceback (most recent call last):\n"));
  const CommandResult job = RunCommand(Cli(*server_, {"jobs", "describe", "fails"}));
  EXPECT_THAT(job.out, HasSubstr(" ModuleNotFoundError: No module named 'u36_missing'\n"));

  // The job FAILED: its study is INACTIVE, not COMPLETED.
  const CommandResult study = RunCommand(Cli(*server_, {"studies", "describe", "fails"}));
  EXPECT_THAT(study.out, HasSubstr("INACTIVE"));
  EXPECT_THAT(study.out, Not(HasSubstr("COMPLETED")));
}

}  // namespace
}  // namespace vernier::testing
