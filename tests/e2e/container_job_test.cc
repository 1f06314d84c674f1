// Container replicas end to end: the real `vernier serve` runs a master with
// an imageUri through podman, in an image this test builds from local files
// (busybox and a shell trainer; nothing is pulled). Trials succeed with the
// metrics the trainer prints in its container, which writes the job dir at
// the host's path and sees its TF_CONFIG; a cancel ends the container, even
// one whose trainer ignores SIGTERM, and leaves none behind. Skipped, with
// the reason, where podman cannot run a container at all.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "tests/e2e/early_stopping_grid.h"
#include "tests/support/job_client.h"
#include "tests/support/server_process.h"
#include "tests/support/subprocess.h"

namespace vernier::testing {
namespace {

using std::chrono::seconds;
using ::testing::HasSubstr;

constexpr char kImage[] = "localhost/vernier-test-trainer:1";

// The trainer, run by the image's busybox: reads --learning_rate and
// --job-dir, writes what it saw into the job dir, prints its metric; with
// --hang it ignores SIGTERM and never ends; with --quality it prints the
// curve of tests/e2e/learning_curve_trainer.py (accuracy=QUALITY+0.001*N at
// step N of 30, 0.1 s apart).
constexpr char kTrainer[] = R"(#!/bin/sh
for arg in "$@"; do
  case "$arg" in
    --learning_rate=*) lr="${arg#*=}" ;;
    --job-dir=*) dir="${arg#*=}" ;;
    --hang) hang=1 ;;
    --quality=*) quality="${arg#*=}" ;;
  esac
done
mkdir -p "$dir"
printf '%s' "$TF_CONFIG" > "$dir/tf_config.json"
printf '%s' "$CLOUD_ML_TRIAL_ID" > "$dir/trial_id"
printf '%s' "$HOME" > "$dir/home"
echo "written inside the container" > "$dir/inside"
if [ -n "$hang" ]; then
  trap '' TERM
  echo hanging > "$dir/hanging"
  while true; do sleep 1; done
fi
if [ -n "$quality" ]; then
  step=1
  while [ "$step" -le 30 ]; do
    awk -v q="$quality" -v s="$step" 'BEGIN { printf "step=%d accuracy=%.4f\n", s, q + 0.001 * s }'
    sleep 0.1
    step=$((step + 1))
  done
  exit 0
fi
echo "accuracy=$lr"
)";

std::string FindOnPath(const std::string& name) {
  const char* path = std::getenv("PATH");
  for (const absl::string_view dir : absl::StrSplit(path != nullptr ? path : "", ':')) {
    const std::string candidate = absl::StrCat(dir, "/", name);
    if (!dir.empty() && access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

class ContainerJobTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string podman = FindOnPath("podman");
    const std::string busybox = FindOnPath("busybox");
    if (podman.empty() || busybox.empty()) {
      GTEST_SKIP() << "needs podman and busybox (scripts/install-deps.sh installs them)";
    }
    // podman's state, all of it in this test's directory: its own storage
    // (vfs: no overlay mounts needed), cgroupfs and a file for events (no
    // systemd), and limits no higher than this machine allows. crun refuses
    // hybrid cgroup hierarchies, which some CI machines have; runc runs
    // there.
    const std::string state = dir_.path() + "/podman";
    std::filesystem::create_directories(state + "/tmp");
    WriteFile(state + "/storage.conf",
              absl::StrCat("[storage]\ndriver = \"vfs\"\nrunroot = \"", state,
                           "/run\"\ngraphroot = \"", state, "/graph\"\n"));
    const std::string runc = FindOnPath("runc");
    WriteFile(state + "/containers.conf",
              absl::StrCat("[containers]\n"
                           "default_ulimits = [\"nofile=1024:1024\", \"nproc=4096:4096\"]\n"
                           "[engine]\n",
                           runc.empty() ? "" : "runtime = \"runc\"\n",
                           "cgroup_manager = \"cgroupfs\"\n"
                           "events_logger = \"file\"\n"
                           "events_logfile_path = \"",
                           state, "/events.log\"\ntmp_dir = \"", state, "/tmp\"\n"));
    // What the server runs as podman: podman with this test's state.
    podman_ = state + "/podman";
    WriteFile(podman_, absl::StrCat("#!/bin/sh\nexport CONTAINERS_CONF='", state,
                                    "/containers.conf'\nexport CONTAINERS_STORAGE_CONF='", state,
                                    "/storage.conf'\nexec '", podman, "' \"$@\"\n"));
    chmod(podman_.c_str(), 0755);

    // The image: busybox, the trainer and an empty /tmp, imported from a
    // tarball.
    const std::string root = dir_.path() + "/rootfs";
    std::filesystem::create_directories(root + "/bin");
    std::filesystem::create_directories(root + "/tmp");
    std::filesystem::copy_file(busybox, root + "/bin/busybox");
    for (const char* applet : {"sh", "mkdir", "sleep", "cat", "awk"}) {
      std::filesystem::create_symlink("busybox", root + "/bin/" + applet);
    }
    WriteFile(root + "/bin/train", kTrainer);
    chmod((root + "/bin/train").c_str(), 0755);
    const std::string tarball = dir_.path() + "/rootfs.tar";
    CommandResult tar = RunCommand({"tar", "-C", root, "-cf", tarball, "."});
    ASSERT_EQ(tar.exit_code, 0) << tar.err;
    CommandResult imported = Podman({"import", tarball, kImage}, seconds(120));
    ASSERT_EQ(imported.exit_code, 0) << imported.err;
    CommandResult probe = Podman({"run", "--rm", "--init", kImage, "/bin/sh", "-c", "echo ok"});
    if (probe.exit_code != 0 || probe.out != "ok\n") {
      GTEST_SKIP() << "podman cannot run a container on this machine: " << probe.err;
    }
    ready_ = true;
  }

  void TearDown() override {
    if (podman_.empty()) return;
    Podman({"rm", "--all", "--force", "--time", "0"});
    Podman({"rmi", "--all", "--force"});
  }

  CommandResult Podman(std::vector<std::string> args, seconds timeout = seconds(60)) {
    args.insert(args.begin(), podman_);
    return RunCommand(args, timeout);
  }

  // The names of the containers podman knows, running or not.
  std::vector<std::string> Containers() {
    CommandResult listed = Podman({"ps", "--all", "--format", "{{.Names}}"});
    EXPECT_EQ(listed.exit_code, 0) << listed.err;
    return absl::StrSplit(absl::StripSuffix(listed.out, "\n"), '\n', absl::SkipEmpty());
  }

  // Containers(), once it is empty or after a minute or two: a replica's
  // container is removed as the replica ends, which may finish a moment
  // after the job's state says so. Waits for that, not for a time.
  std::vector<std::string> ContainersOnceRemoved() {
    std::vector<std::string> left = Containers();
    for (int tries = 0; !left.empty() && tries < 600; ++tries) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      left = Containers();
    }
    return left;
  }

  std::string Config(int max_trials) { return WithImage(SmallConfig(max_trials, 1, 0)); }

  // `config` with the master in the test's image.
  static std::string WithImage(const std::string& config) {
    return absl::StrReplaceAll(
        config,
        {{"  scaleTier: BASIC\n",
          absl::StrCat("  scaleTier: BASIC\n  masterConfig:\n    imageUri: ", kImage, "\n")}});
  }

  void Submit(ServerProcess& server, const std::string& job_id, int max_trials,
              const std::vector<std::string>& command) {
    Submit(server, job_id, Config(max_trials), command);
  }

  void Submit(ServerProcess& server, const std::string& job_id, const std::string& yaml,
              const std::vector<std::string>& command) {
    const std::string config = dir_.path() + "/" + job_id + ".yaml";
    WriteFile(config, yaml);
    CommandResult submit =
        RunCommand(testing::Submit(server, job_id, config, JobDir(job_id), command));
    ASSERT_EQ(submit.exit_code, 0) << submit.err << "\n" << server.log();
  }

  std::string JobDir(const std::string& job_id) const { return dir_.path() + "/jobs/" + job_id; }

  TempDir dir_;
  std::string podman_;
  bool ready_ = false;
};

TEST_F(ContainerJobTest, TrialsRunInTheImageAndReportTheirMetrics) {
  ASSERT_TRUE(ready_);
  ServerProcess server(dir_.path() + "/data", 0, {"--podman", podman_});
  server.Start();
  Submit(server, "boxed", 2, {"/bin/train"});
  const v1::GetJobResponse done = WaitForJob(server, "boxed", Ended);
  ASSERT_EQ(done.job().state(), v1::Job::SUCCEEDED) << done.DebugString() << server.log();

  const std::vector<v1::Trial> trials = ListTrials(server, "boxed");
  ASSERT_EQ(trials.size(), 2u);
  for (const v1::Trial& trial : trials) {
    SCOPED_TRACE(absl::StrCat("trial ", trial.id()));
    EXPECT_EQ(trial.state(), v1::Trial::SUCCEEDED);
    ASSERT_EQ(trial.final_measurement().metrics_size(), 1) << trial.DebugString();
    EXPECT_EQ(trial.final_measurement().metrics(0).metric_id(), "accuracy");
    EXPECT_DOUBLE_EQ(trial.final_measurement().metrics(0).value(),
                     trial.parameters(0).double_value());
    // The container wrote the trial's dir at the host's path.
    const std::string trial_dir = absl::StrCat(JobDir("boxed"), "/", trial.id());
    EXPECT_EQ(ReadFile(trial_dir + "/inside"), "written inside the container\n");
    EXPECT_EQ(ReadFile(trial_dir + "/trial_id"), absl::StrCat(trial.id()));
    const google::protobuf::Struct tf_config = ParseJson(ReadFile(trial_dir + "/tf_config.json"));
    const google::protobuf::Struct& task = tf_config.fields().at("task").struct_value();
    EXPECT_EQ(StringField(task, "type"), "master");
    EXPECT_EQ(StringField(task, "trial"), absl::StrCat(trial.id()));
    // The image keeps its own HOME: the host's does not come in.
    const char* home = std::getenv("HOME");
    if (home != nullptr && *home != '\0') {
      EXPECT_NE(ReadFile(trial_dir + "/home"), home);
    }
  }
  // podman run --rm: nothing is left.
  EXPECT_THAT(ContainersOnceRemoved(), ::testing::IsEmpty()) << server.log();
}

TEST_F(ContainerJobTest, CancelEndsAContainerWhoseTrainerIgnoresSigterm) {
  ASSERT_TRUE(ready_);
  // (ServerProcess gives replicas a grace period of 2 s.)
  ServerProcess server(dir_.path() + "/data", 0, {"--podman", podman_});
  server.Start();
  Submit(server, "stuck", 1, {"/bin/train", "--hang"});
  const std::string hanging = JobDir("stuck") + "/1/hanging";
  WaitForJob(server, "stuck", [&](const v1::GetJobResponse& job) {
    return Ended(job) || std::filesystem::exists(hanging);
  });
  ASSERT_TRUE(std::filesystem::exists(hanging)) << server.log();
  EXPECT_THAT(Containers(), ::testing::ElementsAre("vernier-stuck-t1-master-0-a0"));

  CommandResult cancel = RunCommand(Cli(server, {"jobs", "cancel", "stuck"}));
  ASSERT_EQ(cancel.exit_code, 0) << cancel.err;
  const v1::GetJobResponse done = WaitForJob(server, "stuck", Ended);
  EXPECT_EQ(done.job().state(), v1::Job::CANCELLED) << done.DebugString();
  // The container is gone too.
  EXPECT_THAT(ContainersOnceRemoved(), ::testing::IsEmpty()) << server.log();
}

// The early stopping test's job (tests/e2e/early_stopping_grid.h) in an
// image: the median stopping rule must stop the trial of quality 0.2, and
// its container ends with it.
TEST_F(ContainerJobTest, EarlyStoppedTrialsEndTheirContainers) {
  ASSERT_TRUE(ready_);
  ServerProcess server(dir_.path() + "/data", 0, {"--podman", podman_});
  server.Start();
  Submit(server, "early", WithImage(kEarlyStoppingGridConfig), {"/bin/train"});
  const v1::GetJobResponse done = WaitForJob(server, "early", Ended);
  ASSERT_EQ(done.job().state(), v1::Job::SUCCEEDED) << done.DebugString() << server.log();
  bool lagging_stopped = false;
  for (const v1::Trial& trial : ListTrials(server, "early")) {
    if (trial.parameters(0).double_value() == kLaggingQuality) {
      lagging_stopped = trial.state() == v1::Trial::STOPPED_EARLY;
    }
  }
  EXPECT_TRUE(lagging_stopped) << done.DebugString();
  EXPECT_THAT(ContainersOnceRemoved(), ::testing::IsEmpty()) << server.log();
}

TEST(ContainerServeTest, ServeRefusesAPodmanThatIsNotThere) {
  TempDir dir;
  CommandResult serve = RunCommand({BinaryPath("vernier"), "serve", "--port", "0", "--data-dir",
                                    dir.path() + "/data", "--podman", dir.path() + "/nope"});
  EXPECT_NE(serve.exit_code, 0);
  EXPECT_THAT(serve.err,
              HasSubstr("--podman " + dir.path() + "/nope is missing or not executable"));
}

}  // namespace
}  // namespace vernier::testing
