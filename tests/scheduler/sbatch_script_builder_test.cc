#include "scheduler/slurm/sbatch_script_builder.h"

#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/subprocess.h"

namespace vernier::scheduler {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

ReplicaLaunch Replica(const std::string& role, int index, int gpus) {
  ReplicaLaunch replica;
  replica.role = role;
  replica.index = index;
  replica.argv = {"/opt/vernier-agent", "--role", role, "--", "python3", "train.py", "--lr=0.1"};
  replica.working_dir = "/work dir";
  replica.log_path = absl::StrCat("/jobs/j/7/logs/", role, "-", index, ".log");
  replica.gpu_count = gpus;
  return replica;
}

TrialLaunch ThreeReplicas() {
  TrialLaunch launch;
  launch.job_id = "job_1";
  launch.study_name = "job_1";
  launch.trial_id = 7;
  launch.trial_dir = "/jobs/j/7";
  launch.replicas = {Replica("master", 0, 1), Replica("worker", 0, 2), Replica("ps", 0, 0)};
  launch.replicas[1].env["TF_CONFIG"] = R"({"task": {"type": "worker", "index": 0}, "x": "it's"})";
  launch.replicas[1].env["RANK"] = "1";
  launch.replicas[1].env["CUDA_VISIBLE_DEVICES"] = "5";
  return launch;
}

std::vector<std::string> LinesWith(const std::string& text, const std::string& part) {
  std::vector<std::string> lines;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (line.find(part) != absl::string_view::npos) lines.emplace_back(line);
  }
  return lines;
}

TEST(SbatchScriptBuilderTest, OneAllocationOnOneNodeWithEveryGpuOfTheTrial) {
  absl::StatusOr<std::string> script = BuildSbatchScript(ThreeReplicas(), {});
  ASSERT_TRUE(script.ok()) << script.status();
  EXPECT_THAT(*script, ::testing::StartsWith("#!/bin/bash\n"));
  EXPECT_THAT(*script, HasSubstr("#SBATCH --job-name=vernier-job_1-7\n"));
  EXPECT_THAT(*script, HasSubstr("#SBATCH --nodes=1\n#SBATCH --ntasks=3\n#SBATCH --gpus=3\n"));
  EXPECT_THAT(*script, HasSubstr("#SBATCH --chdir=/jobs/j/7\n"));
  EXPECT_THAT(*script, HasSubstr("#SBATCH --output=/jobs/j/7/logs/slurm-batch.out\n"));
  EXPECT_THAT(*script, HasSubstr("#SBATCH --no-requeue\n"));
  EXPECT_THAT(*script, Not(HasSubstr("--partition")));
  EXPECT_THAT(*script, HasSubstr("unset SLURM_GPUS SLURM_TRES_PER_JOB"));
}

TEST(SbatchScriptBuilderTest, EverySrunLineNamesItsGpusPerTask) {
  absl::StatusOr<std::string> script = BuildSbatchScript(ThreeReplicas(), {});
  ASSERT_TRUE(script.ok()) << script.status();
  const std::vector<std::string> srun_lines = LinesWith(*script, "srun ");
  ASSERT_EQ(srun_lines.size(), 3u) << *script;
  EXPECT_EQ(srun_lines[0],
            "    srun --exact --immediate=20 --nodes=1 --ntasks=1 --gpus-per-task=1 "
            "--job-name=master-0 "
            "--chdir='/work dir' \\");
  EXPECT_THAT(srun_lines[1], HasSubstr("--gpus-per-task=2 --job-name=worker-0"));
  EXPECT_THAT(srun_lines[2], HasSubstr("--gpus-per-task=0 --job-name=ps-0"));
  EXPECT_THAT(*script, HasSubstr(") >>/jobs/j/7/logs/worker-0.log 2>&1 </dev/null &\n"));
  EXPECT_THAT(*script, HasSubstr("/opt/vernier-agent --role worker -- python3 train.py --lr=0.1"));
}

TEST(SbatchScriptBuilderTest, ExportsEachReplicasOwnEnvQuotedAndNoGpusToAReplicaWithout) {
  absl::StatusOr<std::string> script = BuildSbatchScript(ThreeReplicas(), {});
  ASSERT_TRUE(script.ok()) << script.status();
  EXPECT_EQ(LinesWith(*script, "export TF_CONFIG=").size(), 1u);
  EXPECT_THAT(*script, HasSubstr(R"(export TF_CONFIG='{"task": {"type": "worker", "index": 0}, )"
                                 R"("x": "it'\''s"}')"));
  EXPECT_THAT(*script, HasSubstr("export RANK=1\n"));
  // Slurm's own choice of GPUs wins over the server's.
  EXPECT_THAT(*script, Not(HasSubstr("CUDA_VISIBLE_DEVICES=5")));
  EXPECT_EQ(LinesWith(*script, "exec /usr/bin/env -i CUDA_VISIBLE_DEVICES= ").size(), 1u);
  const size_t ps = script->find("# ps-0");
  ASSERT_NE(ps, std::string::npos);
  EXPECT_NE(script->find("exec /usr/bin/env -i CUDA_VISIBLE_DEVICES= ", ps), std::string::npos);
  // Values stay in the exports: the step's command line names variables only.
  EXPECT_THAT(*script, HasSubstr(" RANK=\"$RANK\" TF_CONFIG=\"$TF_CONFIG\" \"$@\"'"));
  EXPECT_THAT(*script, HasSubstr(" ${SLURM_JOB_ID+\"SLURM_JOB_ID=$SLURM_JOB_ID\"}"));
}

TEST(SbatchScriptBuilderTest, GivesEachStepOnlyItsReplicasEnvironment) {
  // The script run by bash with `srun` left out: each replica's command
  // (env, printing its environment) sees its own variables and the
  // step's CUDA_VISIBLE_DEVICES, and nothing of the environment sbatch ran
  // the script in.
  testing::TempDir dir;
  TrialLaunch launch;
  launch.job_id = "job_1";
  launch.study_name = "job_1";
  launch.trial_id = 7;
  launch.trial_dir = dir.path();
  launch.replicas = {Replica("master", 0, 1), Replica("ps", 0, 0)};
  for (ReplicaLaunch& replica : launch.replicas) {
    replica.argv = {"/usr/bin/env"};
    replica.working_dir = dir.path();
    replica.log_path = absl::StrCat(dir.path(), "/", replica.role, ".log");
    replica.env["PATH"] = "/usr/bin:/bin";
    replica.env["ROLE_ONLY"] = absl::StrCat("for ", replica.role, " it's \"quoted\"");
  }
  absl::StatusOr<std::string> script = BuildSbatchScript(launch, {});
  ASSERT_TRUE(script.ok()) << script.status();
  std::string without_srun;
  for (absl::string_view line : absl::StrSplit(*script, '\n')) {
    if (absl::StartsWith(absl::StripLeadingAsciiWhitespace(line), "srun ")) continue;
    absl::StrAppend(&without_srun, line, "\n");
  }
  const std::string path = dir.path() + "/job.sh";
  std::ofstream(path) << without_srun;
  const testing::CommandResult run = testing::RunCommand({"bash", path}, std::chrono::seconds(30),
                                                         {{"SERVER_SECRET", "leaked"},
                                                          {"CUDA_VISIBLE_DEVICES", "3"},
                                                          {"SLURM_JOB_ID", "77"},
                                                          {"SLURM_NTASKS", "2"}});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err << without_srun;
  std::ifstream master_log(dir.path() + "/master.log");
  const std::string master((std::istreambuf_iterator<char>(master_log)), {});
  EXPECT_THAT(master, HasSubstr("ROLE_ONLY=for master it's \"quoted\"\n"));
  EXPECT_THAT(master, HasSubstr("CUDA_VISIBLE_DEVICES=3\n"));
  EXPECT_THAT(master, HasSubstr("PATH=/usr/bin:/bin\n"));
  EXPECT_THAT(master, Not(HasSubstr("SERVER_SECRET")));
  // Slurm's word on the job, not on tasks (a framework would take those for ranks).
  EXPECT_THAT(master, HasSubstr("SLURM_JOB_ID=77\n"));
  EXPECT_THAT(master, Not(HasSubstr("SLURM_NTASKS")));
  std::ifstream ps_log(dir.path() + "/ps.log");
  const std::string ps((std::istreambuf_iterator<char>(ps_log)), {});
  EXPECT_THAT(ps, HasSubstr("ROLE_ONLY=for ps it's \"quoted\"\n"));
  EXPECT_THAT(ps, HasSubstr("CUDA_VISIBLE_DEVICES=\n"));
  EXPECT_THAT(ps, Not(HasSubstr("SERVER_SECRET")));
}

// The script of one replica (master-0) run by bash with fakes of srun and
// scontrol first on PATH (pure logic: what the script does with their
// answers). The fake srun fails without starting the step ("Unable to
// contact slurm controller") as many times as DIR/srun-failures says, then
// runs the step's command; the fake scontrol's `ping` says DOWN as many
// times as DIR/pings-down says, then UP, and its `show node node7` (the
// job's node) says the node has not registered (SlurmdStartTime=None) as
// many times as DIR/shows-unregistered says. The replica appends a line to
// DIR/runs and exits with 3.
class SbatchStepStartTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(dir_.path() + "/bin");
    WriteExecutable("bin/srun", R"sh(#!/bin/sh
calls=$(cat "$FAKE_DIR/srun-calls" 2>/dev/null || echo 0)
echo $((calls + 1)) >"$FAKE_DIR/srun-calls"
failures=$(cat "$FAKE_DIR/srun-failures")
if [ "$failures" -gt 0 ]; then
  echo $((failures - 1)) >"$FAKE_DIR/srun-failures"
  echo "srun: error: Unable to confirm allocation for job 7: Unable to contact slurm controller (connect failure)" >&2
  exit 1
fi
while [ "${1#--}" != "$1" ]; do shift; done
exec "$@"
)sh");
    WriteExecutable("bin/scontrol", R"sh(#!/bin/sh
if [ "$1 $2 $3" = "show node node7" ]; then
  unregistered=$(cat "$FAKE_DIR/shows-unregistered")
  if [ "$unregistered" -gt 0 ]; then
    echo $((unregistered - 1)) >"$FAKE_DIR/shows-unregistered"
    echo "   BootTime=None SlurmdStartTime=None"
  else
    echo "   BootTime=2026-12-01T01:23:44 SlurmdStartTime=2026-12-01T15:06:02"
  fi
  exit 0
fi
[ "$1" = ping ] || exit 2
down=$(cat "$FAKE_DIR/pings-down")
if [ "$down" -gt 0 ]; then
  echo $((down - 1)) >"$FAKE_DIR/pings-down"
  echo "Slurmctld(primary) at node is DOWN"
  exit 1
fi
echo "Slurmctld(primary) at node is UP"
)sh");
  }

  // Runs the script; the fake srun fails `srun_failures` times, the fake
  // scontrol says DOWN `pings_down` times.
  testing::CommandResult Run(int srun_failures, int pings_down, SbatchOptions options = {},
                             int shows_unregistered = 0) {
    std::ofstream(dir_.path() + "/srun-failures") << srun_failures << "\n";
    std::ofstream(dir_.path() + "/pings-down") << pings_down << "\n";
    std::ofstream(dir_.path() + "/shows-unregistered") << shows_unregistered << "\n";
    TrialLaunch launch;
    launch.job_id = "job_1";
    launch.study_name = "job_1";
    launch.trial_id = 7;
    launch.trial_dir = dir_.path();
    ReplicaLaunch master = Replica("master", 0, 0);
    master.argv = {"/bin/sh", "-c", absl::StrCat("echo ran >>'", dir_.path(), "/runs'; exit 3")};
    master.working_dir = dir_.path();
    master.log_path = log_path();
    launch.replicas = {master};
    absl::StatusOr<std::string> script = BuildSbatchScript(launch, options);
    EXPECT_TRUE(script.ok()) << script.status();
    const std::string path = dir_.path() + "/job.sh";
    std::ofstream(path) << script.value_or("");
    return testing::RunCommand({"bash", path}, std::chrono::seconds(60),
                               {{"PATH", absl::StrCat(dir_.path(), "/bin:/usr/bin:/bin")},
                                {"FAKE_DIR", dir_.path()},
                                {"SLURMD_NODENAME", "node7"}});
  }

  std::string log_path() const { return dir_.path() + "/master-0.log"; }
  std::string Read(const std::string& name) const {
    std::ifstream in(dir_.path() + "/" + name);
    return std::string((std::istreambuf_iterator<char>(in)), {});
  }

  testing::TempDir dir_;

 private:
  void WriteExecutable(const std::string& name, const std::string& text) {
    const std::string path = dir_.path() + "/" + name;
    std::ofstream(path) << text;
    std::filesystem::permissions(path, std::filesystem::perms::owner_all);
  }
};

TEST_F(SbatchStepStartTest, AStepThatRanIsNeverRunAgainAndItsStatusIsTheReplicas) {
  const testing::CommandResult run = Run(/*srun_failures=*/0, /*pings_down=*/0);
  EXPECT_EQ(run.exit_code, 3) << run.out << run.err;
  EXPECT_EQ(Read("runs"), "ran\n");
  EXPECT_EQ(Read("srun-calls"), "1\n");
  EXPECT_EQ(Read("master-0.log.exit"), "3\n");
  EXPECT_THAT(Read("master-0.log"), Not(HasSubstr("did not start")));
}

TEST_F(SbatchStepStartTest, WhileSlurmctldIsAwayAStepWaitsForItAndStartsOnce) {
  // srun could not reach slurmctld, which answers from the 4th ping on.
  const testing::CommandResult run = Run(/*srun_failures=*/1, /*pings_down=*/3);
  EXPECT_EQ(run.exit_code, 3) << run.out << run.err << Read("master-0.log");
  EXPECT_EQ(Read("runs"), "ran\n");
  EXPECT_EQ(Read("srun-calls"), "2\n");
  EXPECT_EQ(Read("pings-down"), "0\n");
  EXPECT_EQ(Read("master-0.log.exit"), "3\n");
  const std::string log = Read("master-0.log");
  EXPECT_THAT(log, HasSubstr("Unable to contact slurm controller"));
  EXPECT_THAT(log, HasSubstr("the step did not start: slurmctld does not answer; starting it "
                             "once slurmctld answers"));
}

TEST_F(SbatchStepStartTest, AfterSlurmctldIsBackAStepWaitsUntilTheNodeRegisteredWithIt) {
  // Asked for before the node registered, a step would wait in Slurm until
  // another step of the job ends.
  const testing::CommandResult run =
      Run(/*srun_failures=*/1, /*pings_down=*/1, {}, /*shows_unregistered=*/2);
  EXPECT_EQ(run.exit_code, 3) << run.out << run.err << Read("master-0.log");
  EXPECT_EQ(Read("runs"), "ran\n");
  EXPECT_EQ(Read("srun-calls"), "2\n");
  EXPECT_EQ(Read("shows-unregistered"), "0\n");
}

TEST_F(SbatchStepStartTest, AStepWaitsForSlurmctldNoLongerThanTheOutageLimit) {
  SbatchOptions options;
  options.slurmctld_wait_limit = absl::Seconds(3);
  const testing::CommandResult run = Run(/*srun_failures=*/1, /*pings_down=*/1000, options);
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  EXPECT_EQ(Read("runs"), "");
  EXPECT_EQ(Read("srun-calls"), "1\n");
  EXPECT_EQ(Read("master-0.log.exit"), "1\n");
  EXPECT_THAT(Read("master-0.log"),
              HasSubstr("slurmctld stayed unreachable for longer than 3s (--slurm-outage-limit); "
                        "the replica fails without starting"));
}

TEST_F(SbatchStepStartTest, AStepThatNeverStartsWithSlurmctldUpIsTriedThreeTimesThenFails) {
  const testing::CommandResult run = Run(/*srun_failures=*/100, /*pings_down=*/0);
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  EXPECT_EQ(Read("runs"), "");
  EXPECT_EQ(Read("srun-calls"), "3\n");
  EXPECT_EQ(Read("master-0.log.exit"), "1\n");
  const std::string log = Read("master-0.log");
  EXPECT_EQ(LinesWith(log, "the step did not start (srun: exit code 1); trying again").size(), 2u)
      << log;
}

TEST_F(SbatchStepStartTest, AStepThatCannotRecordItsGpusRunsNothing) {
  // The GPUs file cannot be written (a directory stands in its place): the
  // step ends at once, and since it did start, it is not tried again.
  std::filesystem::create_directories(log_path() + ".gpus");
  const testing::CommandResult run = Run(/*srun_failures=*/0, /*pings_down=*/0);
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  EXPECT_EQ(Read("runs"), "");
  EXPECT_EQ(Read("srun-calls"), "1\n");
  EXPECT_EQ(Read("master-0.log.exit"), "1\n");
}

TEST(SbatchScriptBuilderTest, IsValidBashThatCarriesTheEnvironmentThrough) {
  // The script's export lines, run by bash, give back the exact values.
  TrialLaunch launch = ThreeReplicas();
  const std::string tricky = "a'b\"c $HOME `x` \\ \n{\"k\": [1, 2]}";
  launch.replicas[0].env["TRICKY"] = tricky;
  SbatchOptions options;
  options.partition = "gpu";
  absl::StatusOr<std::string> script = BuildSbatchScript(launch, options);
  ASSERT_TRUE(script.ok()) << script.status();
  EXPECT_THAT(*script, HasSubstr("#SBATCH --partition=gpu\n"));
  testing::TempDir dir;
  const std::string path = dir.path() + "/job.sh";
  std::ofstream(path) << *script;
  const testing::CommandResult syntax = testing::RunCommand({"bash", "-n", path});
  EXPECT_EQ(syntax.exit_code, 0) << syntax.err;
  const size_t start = script->find("  export TRICKY=");
  const size_t end = script->find("\n  tries=0", start);
  const testing::CommandResult echoed = testing::RunCommand(
      {"bash", "-c", script->substr(start, end - start) + "\nprintf %s \"$TRICKY\""});
  EXPECT_EQ(echoed.out, tricky);
}

TEST(SbatchScriptBuilderTest, NoGpuDirectiveWhenNoReplicaHasGpus) {
  TrialLaunch launch = ThreeReplicas();
  for (ReplicaLaunch& replica : launch.replicas) replica.gpu_count = 0;
  absl::StatusOr<std::string> script = BuildSbatchScript(launch, {});
  ASSERT_TRUE(script.ok()) << script.status();
  EXPECT_THAT(*script, Not(HasSubstr("--gpus=")));
  EXPECT_EQ(LinesWith(*script, "--gpus-per-task=0").size(), 3u);
}

TEST(SbatchScriptBuilderTest, RejectsWhatAScriptCannotCarry) {
  TrialLaunch bad_name = ThreeReplicas();
  bad_name.replicas[1].env["NOT-A-NAME"] = "x";
  absl::StatusOr<std::string> script = BuildSbatchScript(bad_name, {});
  EXPECT_EQ(script.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(script.status().message(),
              HasSubstr("replica worker-0: environment variable name 'NOT-A-NAME'"));

  TrialLaunch nul = ThreeReplicas();
  nul.replicas[0].argv.push_back(std::string("a\0b", 3));
  script = BuildSbatchScript(nul, {});
  EXPECT_EQ(script.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(script.status().message(), HasSubstr("replica master-0: an argument holds a NUL"));

  TrialLaunch empty = ThreeReplicas();
  empty.replicas.clear();
  EXPECT_EQ(BuildSbatchScript(empty, {}).status().code(), absl::StatusCode::kInvalidArgument);

  TrialLaunch no_command = ThreeReplicas();
  no_command.replicas[2].argv.clear();
  script = BuildSbatchScript(no_command, {});
  EXPECT_THAT(script.status().message(), HasSubstr("replica ps-0 has an empty command line"));

  TrialLaunch negative = ThreeReplicas();
  negative.replicas[2].gpu_count = -1;
  script = BuildSbatchScript(negative, {});
  EXPECT_THAT(script.status().message(), HasSubstr("replica ps-0 asks for -1 GPUs"));
}

// A job dir with a newline ended the #SBATCH line and ran the next line as a
// command of the batch script.
TEST(SbatchScriptBuilderTest, AControlCharacterInAPathOrDirectiveValueIsRefusedNamingTheField) {
  const std::string injected = "/jobs/j\necho injected > /tmp/pwned\n#SBATCH --x";
  struct Case {
    std::function<void(TrialLaunch&, SbatchOptions&)> plant;
    std::string field;
  };
  const std::vector<Case> cases = {
      {[&](TrialLaunch& l, SbatchOptions&) { l.trial_dir = injected; },
       "trial dir (under the job dir)"},
      {[&](TrialLaunch& l, SbatchOptions&) { l.replicas[1].log_path = injected + "/w.log"; },
       "replica worker-0: log path"},
      {[&](TrialLaunch& l, SbatchOptions&) { l.replicas[0].working_dir = "/w\rx"; },
       "replica master-0: working dir"},
      {[&](TrialLaunch&, SbatchOptions& o) { o.partition = "gpu\n#SBATCH --x"; },
       "Slurm partition"},
      {[&](TrialLaunch& l, SbatchOptions&) { l.study_name = std::string("s\0t", 3); },
       "study name"},
      {[&](TrialLaunch& l, SbatchOptions&) { l.job_id = "j\x1b[2J"; }, "job id"},
      {[&](TrialLaunch& l, SbatchOptions& o) {
         l.owner = "ada\n#SBATCH --x";
         o.account_from_owner = true;
       },
       "Slurm account"},
      {[&](TrialLaunch& l, SbatchOptions& o) {
         l.owner = "ada";
         o.qos["ada"] = "high\n#SBATCH --x";
       },
       "Slurm QoS"},
  };
  for (const Case& test : cases) {
    TrialLaunch launch = ThreeReplicas();
    SbatchOptions options;
    test.plant(launch, options);
    absl::StatusOr<std::string> script = BuildSbatchScript(launch, options);
    ASSERT_EQ(script.status().code(), absl::StatusCode::kInvalidArgument)
        << test.field << ": " << (script.ok() ? *script : script.status().ToString());
    EXPECT_THAT(script.status().message(), HasSubstr(test.field + " contains a control character"));
  }
}

TEST(SbatchScriptBuilderTest, NoAccountOrQosUnlessTheServerMapsTheOwner) {
  TrialLaunch launch = ThreeReplicas();
  launch.owner = "ada";
  absl::StatusOr<std::string> script = BuildSbatchScript(launch, {});
  ASSERT_TRUE(script.ok()) << script.status();
  EXPECT_THAT(*script, Not(HasSubstr("--account")));
  EXPECT_THAT(*script, Not(HasSubstr("--qos")));
  SbatchOptions others;
  others.accounts["bob"] = "physics";
  others.qos["bob"] = "high";
  script = BuildSbatchScript(launch, others);
  ASSERT_TRUE(script.ok()) << script.status();
  EXPECT_THAT(*script, Not(HasSubstr("--account")));
  EXPECT_THAT(*script, Not(HasSubstr("--qos")));
}

TEST(SbatchScriptBuilderTest, ChargesTheOwnersAccountAndQosSoSlurmsFairShareApplies) {
  TrialLaunch launch = ThreeReplicas();
  launch.owner = "ada";
  SbatchOptions options;
  options.partition = "gpu";
  options.accounts["ada"] = "physics";
  options.qos["ada"] = "high";
  absl::StatusOr<std::string> script = BuildSbatchScript(launch, options);
  ASSERT_TRUE(script.ok()) << script.status();
  EXPECT_THAT(
      *script,
      HasSubstr("#SBATCH --partition=gpu\n#SBATCH --account=physics\n#SBATCH --qos=high\n"));
  EXPECT_EQ(SlurmAccountOf(launch, options), "physics");
  EXPECT_EQ(SlurmQosOf(launch, options), "high");

  // Named after the owner, unless the mapping names another.
  options.account_from_owner = true;
  EXPECT_EQ(SlurmAccountOf(launch, options), "physics");
  launch.owner = "bob";
  EXPECT_EQ(SlurmAccountOf(launch, options), "bob");
  EXPECT_EQ(SlurmQosOf(launch, options), "");
  script = BuildSbatchScript(launch, options);
  ASSERT_TRUE(script.ok()) << script.status();
  EXPECT_THAT(*script, HasSubstr("#SBATCH --account=bob\n"));
  EXPECT_THAT(*script, Not(HasSubstr("--qos")));
  // A job stored before owners existed: the server user's default account.
  launch.owner = "";
  EXPECT_EQ(SlurmAccountOf(launch, options), "");
  script = BuildSbatchScript(launch, options);
  ASSERT_TRUE(script.ok()) << script.status();
  EXPECT_THAT(*script, Not(HasSubstr("--account")));
}

TEST(SbatchScriptBuilderTest, EveryLineOfTheScriptIsOneLineOfItsOwn) {
  // Names with spaces and quotes: the comments quote them too.
  TrialLaunch launch = ThreeReplicas();
  launch.trial_dir = "/jobs/it's here/7";
  absl::StatusOr<std::string> script = BuildSbatchScript(launch, {});
  ASSERT_TRUE(script.ok()) << script.status();
  EXPECT_THAT(*script, HasSubstr("#SBATCH --chdir='/jobs/it'\\''s here/7'\n"));
  for (const std::string& line : LinesWith(*script, "#SBATCH")) {
    EXPECT_THAT(line, ::testing::StartsWith("#SBATCH --")) << line;
  }
}

TEST(SbatchScriptBuilderTest, StatusFilesSitBesideTheLog) {
  EXPECT_EQ(ReplicaExitPath("/d/logs/master-0.log"), "/d/logs/master-0.log.exit");
  EXPECT_EQ(ReplicaGpusPath("/d/logs/master-0.log"), "/d/logs/master-0.log.gpus");
}

}  // namespace
}  // namespace vernier::scheduler
