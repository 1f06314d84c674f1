// End-to-end tests of the vernier-agent binary against a recording
// AgentService, with real trainer processes.

#include "trainer-agent/agent.h"

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "tests/support/subprocess.h"
#include "tests/trainer-agent/recording_agent_service.h"
#include "text/utf8_text.h"

extern char** environ;

namespace vernier::agent {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::SizeIs;

using ::vernier::testing::ReadFile;

std::string AgentBinary() {
  if (const char* build_dir = std::getenv("VERNIER_BUILD_DIR")) {
    return std::string(build_dir) + "/bin/vernier-agent";
  }
  // Run by hand: the tests and the agent share the build's bin/ folder.
  return (std::filesystem::read_symlink("/proc/self/exe").parent_path() / "vernier-agent").string();
}

std::string SourceDir() {
  if (const char* source_dir = std::getenv("VERNIER_SOURCE_DIR")) return source_dir;
  return std::filesystem::current_path().string();
}

class AgentTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(sockets_.path().empty());
    ASSERT_TRUE(std::filesystem::exists(AgentBinary())) << AgentBinary();
    trial_dir_ = sockets_.path() + "/trial";
    log_path_ = sockets_.path() + "/replica.log";
  }
  void TearDown() override {
    if (agent_pid_ > 0) {
      kill(agent_pid_, SIGKILL);
      waitpid(agent_pid_, nullptr, 0);
    }
    if (server_) server_->Shutdown();
  }

  void StartServer() {
    server_ = testing::StartServer(sockets_.address(), service_);
    ASSERT_NE(server_, nullptr);
  }

  std::vector<std::string> AgentFlags() {
    return {"--server",
            sockets_.address(),
            "--study",
            "lr_sweep_001",
            "--trial",
            "3",
            "--role",
            "master",
            "--index",
            "0",
            "--metric-tag",
            "accuracy",
            "--trial-dir",
            trial_dir_,
            "--grace-period-ms",
            "2000"};
  }

  // Starts the agent with stdout and stderr going to the replica log, as the
  // service does.
  void Spawn(std::vector<std::string> arguments) {
    arguments.insert(arguments.begin(), AgentBinary());
    std::vector<char*> argv;
    for (std::string& argument : arguments) argv.push_back(argument.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log_path_.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
    const int error = posix_spawn(&agent_pid_, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ASSERT_EQ(error, 0) << strerror(error);
  }

  void SpawnWithTrainer(const std::string& script, const std::vector<std::string>& flags = {}) {
    std::vector<std::string> arguments = AgentFlags();
    arguments.insert(arguments.end(), flags.begin(), flags.end());
    for (const char* part : {"--", "/bin/sh", "-c"}) arguments.push_back(part);
    arguments.push_back(script);
    Spawn(arguments);
  }

  // The agent's exit code, or nullopt when it is still running at the deadline.
  std::optional<int> WaitForAgent(absl::Duration timeout = absl::Seconds(15)) {
    const absl::Time deadline = absl::Now() + timeout;
    while (absl::Now() < deadline) {
      int status = 0;
      const pid_t done = waitpid(agent_pid_, &status, WNOHANG);
      if (done == agent_pid_) {
        agent_pid_ = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
      absl::SleepFor(absl::Milliseconds(20));
    }
    return std::nullopt;
  }

  bool WaitForStored(size_t count) {
    return service_.WaitFor([&] { return service_.stored().size() >= count; }, absl::Seconds(10));
  }

  std::string Log() { return ReadFile(log_path_); }

  testing::SocketDirectory sockets_;
  testing::RecordingAgentService service_;
  std::unique_ptr<grpc::Server> server_;
  std::string trial_dir_;
  std::string log_path_;
  pid_t agent_pid_ = -1;
};

TEST_F(AgentTest, ReportsStdoutAndHypertuneMeasurementsAndTheExit) {
  StartServer();
  SpawnWithTrainer(
      "echo trial id $CLOUD_ML_TRIAL_ID; "
      "echo epoch=1 loss=0.9 accuracy=0.5; echo epoch=2 loss=0.5 accuracy=0.75; "
      "echo '{\"accuracy\": \"0.8\", \"global_step\": \"3\", \"trial\": \"3\"}' "
      "> \"$CLOUD_ML_HP_METRIC_FILE\"; echo bye >&2; exit 0");
  ASSERT_EQ(WaitForAgent(), 0) << Log();
  const auto stored = service_.StoredCopy();
  ASSERT_THAT(stored, SizeIs(3)) << Log();
  // Stdout and the hypertune file are read independently, so order by step.
  std::map<int64_t, v1::Measurement> by_step;
  for (const auto& [sequence_number, measurement] : stored) {
    EXPECT_GE(sequence_number, 1);
    EXPECT_LE(sequence_number, 3);
    by_step[measurement.step()] = measurement;
  }
  ASSERT_THAT(by_step, SizeIs(3));
  ASSERT_THAT(by_step.at(2).metrics(), SizeIs(2));
  EXPECT_EQ(by_step.at(2).metrics(1).metric_id(), "accuracy");
  EXPECT_DOUBLE_EQ(by_step.at(2).metrics(1).value(), 0.75);
  EXPECT_GE(by_step.at(2).elapsed_seconds(), 0.0);
  ASSERT_THAT(by_step.at(3).metrics(), SizeIs(1));
  EXPECT_DOUBLE_EQ(by_step.at(3).metrics(0).value(), 0.8);
  const auto exits = service_.ExitsCopy();
  ASSERT_THAT(exits, SizeIs(1));
  EXPECT_EQ(exits[0].replica().study_name(), "lr_sweep_001");
  EXPECT_EQ(exits[0].replica().trial_id(), 3);
  EXPECT_EQ(exits[0].replica().role(), "master");
  EXPECT_EQ(exits[0].exit_code(), 0);
  EXPECT_EQ(exits[0].term_signal(), 0);
  EXPECT_FALSE(exits[0].stopped_by_request());
  EXPECT_THAT(exits[0].log_tail(), HasSubstr("epoch=2 loss=0.5 accuracy=0.75\nbye\n"));
  const std::string log = Log();
  EXPECT_THAT(log, HasSubstr("trial id 3\nepoch=1 loss=0.9 accuracy=0.5\n"));
  EXPECT_THAT(log, HasSubstr("[vernier-agent study=lr_sweep_001 trial=3 master-0] "));
  EXPECT_THAT(log, HasSubstr("reported exit code 0 and 3 measurements"));
  EXPECT_TRUE(std::filesystem::exists(trial_dir_ + "/.vernier/hypertune/output.metrics"));
}

TEST(AgentMetricFileTest, EveryReplicaButTheMasterHasItsOwnFile) {
  AgentOptions options;
  options.trial_dir = "/runs/4";
  options.role = "master";
  EXPECT_EQ(Agent::MetricFilePath(options), "/runs/4/.vernier/hypertune/output.metrics");
  options.role = "chief";
  EXPECT_EQ(Agent::MetricFilePath(options), "/runs/4/.vernier/hypertune/output.metrics");
  options.role = "worker";
  options.index = 1;
  EXPECT_EQ(Agent::MetricFilePath(options), "/runs/4/.vernier/worker-1/hypertune/output.metrics");
  options.role = "ps";
  options.index = 0;
  EXPECT_EQ(Agent::MetricFilePath(options), "/runs/4/.vernier/ps-0/hypertune/output.metrics");
}

TEST_F(AgentTest, FailingTrainerReportsItsCodeAndLogTail) {
  StartServer();
  SpawnWithTrainer("echo 'Traceback: boom' >&2; exit 3");
  ASSERT_EQ(WaitForAgent(), 3) << Log();
  const auto exits = service_.ExitsCopy();
  ASSERT_THAT(exits, SizeIs(1));
  EXPECT_EQ(exits[0].exit_code(), 3);
  EXPECT_EQ(exits[0].log_tail(), "Traceback: boom\n");
  EXPECT_THAT(Log(), HasSubstr("the program reported no value of the objective metric "
                               "'accuracy' (0 measurements)"));
}

// A line cut at the tail's 1,024-byte limit inside a character, and a byte
// that is no UTF-8 at all: the exit report once failed to parse at the
// service (INTERNAL, empty message) and the agent retried it for an hour.
TEST_F(AgentTest, OutputThatIsNotUtf8StillReportsTheExit) {
  StartServer();
  SpawnWithTrainer(
      "echo loss=0.5 accuracy=0.5; s=; i=0; "
      "while [ $i -lt 400 ]; do s=\"${s}\xe8\xae\xad\"; i=$((i+1)); done; "
      "printf \"ab$s\\n\"; printf 'bad \\377 byte\\n'; exit 2");
  ASSERT_EQ(WaitForAgent(), 2) << Log();
  const auto exits = service_.ExitsCopy();
  ASSERT_THAT(exits, SizeIs(1)) << Log();
  const std::string& tail = exits[0].log_tail();
  EXPECT_TRUE(text::Utf8Text::IsValid(tail)) << tail;
  EXPECT_THAT(tail, HasSubstr("loss=0.5 accuracy=0.5\nab\xe8\xae\xad"));
  // The character the limit cut is left out, not replaced.
  EXPECT_THAT(tail, HasSubstr("\xe8\xae\xad [line truncated]\n"));
  EXPECT_THAT(tail, HasSubstr("bad " + std::string(text::Utf8Text::kReplacement) + " byte\n"));
  EXPECT_THAT(service_.StoredCopy(), SizeIs(1));
}

// A parameter value with a newline once wrote a line of the agent's log of
// its own choosing.
TEST_F(AgentTest, ArgumentsWithNewlinesCannotForgeLogLines) {
  StartServer();
  std::vector<std::string> arguments = AgentFlags();
  for (const char* part :
       {"--", "/bin/sh", "-c", "echo accuracy=0.5", "trainer",
        "--optimizer=adam\n[vernier-agent study=x trial=1 master-0] forged: reported exit code 0"}) {
    arguments.push_back(part);
  }
  Spawn(arguments);
  ASSERT_EQ(WaitForAgent(), 0) << Log();
  const std::string log = Log();
  EXPECT_THAT(log, HasSubstr("--optimizer=adam\\n[vernier-agent study=x trial=1 master-0] forged"));
  EXPECT_THAT(log, Not(HasSubstr("\n[vernier-agent study=x trial=1 master-0] forged"))) << log;
}

TEST_F(AgentTest, TrainerThatCannotBeExecutedIsReportedAs127) {
  StartServer();
  std::vector<std::string> arguments = AgentFlags();
  for (const char* part : {"--", "/nonexistent/python3", "train.py"}) arguments.push_back(part);
  Spawn(arguments);
  ASSERT_EQ(WaitForAgent(), 127) << Log();
  const auto exits = service_.ExitsCopy();
  ASSERT_THAT(exits, SizeIs(1));
  EXPECT_EQ(exits[0].exit_code(), 127);
  EXPECT_THAT(exits[0].log_tail(),
              HasSubstr("cannot execute '/nonexistent/python3': No such file or directory"));
}

TEST_F(AgentTest, SigtermStopsTheTrainerAndReportsAStopByRequest) {
  StartServer();
  SpawnWithTrainer(
      "trap 'echo term-received; exit 143' TERM; echo epoch=1 accuracy=0.5; "
      "while :; do sleep 0.05; done");
  ASSERT_TRUE(WaitForStored(1)) << Log();
  ASSERT_EQ(kill(agent_pid_, SIGTERM), 0);
  ASSERT_EQ(WaitForAgent(), 143) << Log();
  const auto exits = service_.ExitsCopy();
  ASSERT_THAT(exits, SizeIs(1));
  EXPECT_TRUE(exits[0].stopped_by_request());
  EXPECT_EQ(exits[0].exit_code(), 143);
  EXPECT_THAT(exits[0].log_tail(), HasSubstr("term-received"));
  EXPECT_THAT(Log(), HasSubstr("received signal 15 (Terminated); stopping the program"));
}

TEST_F(AgentTest, ShouldStopFromTheServiceStopsTheTrainer) {
  StartServer();
  service_.SetShouldStop(true, "median stopping rule");
  SpawnWithTrainer("i=0; while :; do i=$((i+1)); echo step=$i accuracy=0.5; sleep 0.05; done");
  ASSERT_EQ(WaitForAgent(), 128 + SIGTERM) << Log();
  const auto exits = service_.ExitsCopy();
  ASSERT_THAT(exits, SizeIs(1));
  EXPECT_TRUE(exits[0].stopped_by_request());
  EXPECT_EQ(exits[0].term_signal(), SIGTERM);
  EXPECT_THAT(Log(), HasSubstr("the service asked to stop the trial (median stopping rule)"));
}

TEST_F(AgentTest, TrainerIgnoringSigtermIsKilledAfterTheGracePeriod) {
  StartServer();
  service_.SetShouldStop(true, "stop");
  SpawnWithTrainer("trap '' TERM; echo accuracy=0.1; while :; do sleep 0.05; done");
  ASSERT_EQ(WaitForAgent(), 128 + SIGKILL) << Log();
  const auto exits = service_.ExitsCopy();
  ASSERT_THAT(exits, SizeIs(1));
  EXPECT_TRUE(exits[0].stopped_by_request());
  EXPECT_EQ(exits[0].term_signal(), SIGKILL);
  EXPECT_THAT(Log(), HasSubstr("did not exit within 2s of SIGTERM; sending SIGKILL"));
}

// A stand-in for podman at `path` that records its arguments in
// `path`.args and exits with `exit_code`.
void WritePodman(const std::string& path, int exit_code) {
  {
    std::ofstream script(path);
    script << "#!/bin/sh\necho \"$@\" >> '" << path << ".args'\necho 'no such storage' >&2\nexit "
           << exit_code << "\n";
  }
  std::filesystem::permissions(path, std::filesystem::perms::owner_all);
}

TEST_F(AgentTest, TheContainerIsRemovedOnceTheTrainerWasKilled) {
  StartServer();
  service_.SetShouldStop(true, "stop");
  const std::string podman = sockets_.path() + "/podman";
  WritePodman(podman, 0);
  SpawnWithTrainer("trap '' TERM; echo accuracy=0.1; while :; do sleep 0.05; done",
                   {"--container", "vernier-sweep-t3-master-0-a0", "--podman", podman});
  ASSERT_EQ(WaitForAgent(), 128 + SIGKILL) << Log();
  EXPECT_EQ(ReadFile(podman + ".args"),
            "rm --force --ignore --time 0 vernier-sweep-t3-master-0-a0\n");
  EXPECT_THAT(service_.ExitsCopy(), SizeIs(1));
}

TEST_F(AgentTest, AContainerThatCannotBeRemovedIsLoggedAndTheExitStillReported) {
  StartServer();
  const std::string podman = sockets_.path() + "/podman";
  WritePodman(podman, 1);
  SpawnWithTrainer("echo accuracy=0.1", {"--container", "c1", "--podman", podman});
  ASSERT_EQ(WaitForAgent(), 0) << Log();
  EXPECT_THAT(Log(), HasSubstr("cannot remove container c1: podman rm exited with code 1: no "
                               "such storage"));
  EXPECT_THAT(service_.ExitsCopy(), SizeIs(1));

  // A podman that cannot be started at all.
  SpawnWithTrainer("echo accuracy=0.1",
                   {"--container", "c2", "--podman", sockets_.path() + "/missing"});
  ASSERT_EQ(WaitForAgent(), 0) << Log();
  EXPECT_THAT(Log(), HasSubstr("cannot remove container c2: UNAVAILABLE"));
}

TEST_F(AgentTest, DeliversEverythingWhenTheServiceComesUpLate) {
  SpawnWithTrainer("echo epoch=1 accuracy=0.5; echo epoch=2 accuracy=0.6; exit 0");
  // The trainer is done long before the service listens.
  absl::SleepFor(absl::Milliseconds(700));
  StartServer();
  ASSERT_EQ(WaitForAgent(), 0) << Log();
  EXPECT_THAT(service_.StoredCopy(), SizeIs(2));
  EXPECT_EQ(service_.DuplicatesCopy(), 0);
  EXPECT_THAT(service_.ExitsCopy(), SizeIs(1));
}

TEST_F(AgentTest, TrainerDiesWhenTheAgentIsKilledHard) {
  StartServer();
  const std::string pid_file = sockets_.path() + "/trainer.pid";
  SpawnWithTrainer(absl::StrCat("echo $$ > ", pid_file, "; echo accuracy=0.5; exec sleep 30"));
  ASSERT_TRUE(WaitForStored(1)) << Log();
  const pid_t trainer = std::stoi(ReadFile(pid_file));
  ASSERT_EQ(kill(agent_pid_, SIGKILL), 0);
  ASSERT_TRUE(WaitForAgent().has_value());
  // Gone, or a zombie waiting for init: either way no longer running.
  const absl::Time deadline = absl::Now() + absl::Seconds(5);
  bool ended = false;
  while (!ended && absl::Now() < deadline) {
    const std::string stat = ReadFile(absl::StrCat("/proc/", trainer, "/stat"));
    ended = stat.empty() || stat.find(") Z ") != std::string::npos;
    if (!ended) absl::SleepFor(absl::Milliseconds(20));
  }
  EXPECT_TRUE(ended) << "trainer " << trainer << " outlived the agent";
}

TEST_F(AgentTest, UnusableTrialDirIsReportedAsASetupFailure) {
  StartServer();
  std::vector<std::string> arguments = AgentFlags();
  for (size_t i = 0; i + 1 < arguments.size(); ++i) {
    if (arguments[i] == "--trial-dir") arguments[i + 1] = "/dev/null/trial";
  }
  for (const char* part : {"--", "/bin/true"}) arguments.push_back(part);
  Spawn(arguments);
  ASSERT_EQ(WaitForAgent(), 125) << Log();
  const auto exits = service_.ExitsCopy();
  ASSERT_THAT(exits, SizeIs(1));
  EXPECT_EQ(exits[0].exit_code(), 125);
  EXPECT_THAT(exits[0].log_tail(),
              HasSubstr("vernier-agent: cannot create directory /dev/null/trial/.vernier/"
                        "hypertune for CLOUD_ML_HP_METRIC_FILE: Not a directory"));
}

TEST_F(AgentTest, CommandLineErrors) {
  Spawn({"--server", sockets_.address()});
  EXPECT_EQ(WaitForAgent(), 2);
  EXPECT_THAT(Log(), HasSubstr("vernier-agent: no program given; usage: vernier-agent --server"));

  Spawn({"--study", "s", "--", "/bin/true"});
  const std::optional<int> code = WaitForAgent();
  ASSERT_TRUE(code.has_value());
  EXPECT_NE(*code, 0);
  EXPECT_THAT(Log(), HasSubstr("--server is required"));
}

TEST_F(AgentTest, RunsTheExampleTrainer) {
  const std::string script = SourceDir() + "/examples/trainer/train.py";
  if (!std::filesystem::exists(script) || system("python3 -c pass 2>/dev/null") != 0) {
    GTEST_SKIP() << "needs python3 and " << script;
  }
  StartServer();
  const std::string job_dir = sockets_.path() + "/job";
  std::vector<std::string> arguments = AgentFlags();
  for (const std::string& part :
       {std::string("--"), std::string("python3"), script, std::string("--epochs"),
        std::string("3"), std::string("--learning_rate=0.05"), std::string("--optimizer=adam"),
        std::string("--hidden_layers=2"), std::string("--report=hypertune"),
        "--job-dir=" + job_dir}) {
    arguments.push_back(part);
  }
  Spawn(arguments);
  ASSERT_EQ(WaitForAgent(absl::Seconds(30)), 0) << Log();
  const auto stored = service_.StoredCopy();
  // Three epoch lines on stdout and three records in the hypertune file.
  ASSERT_THAT(stored, SizeIs(6)) << Log();
  int accuracy_values = 0;
  for (const auto& [sequence_number, measurement] : stored) {
    for (const v1::Metric& metric : measurement.metrics()) {
      if (metric.metric_id() != "accuracy") continue;
      ++accuracy_values;
      EXPECT_GT(metric.value(), 0.0);
      EXPECT_LE(metric.value(), 1.0);
    }
  }
  EXPECT_EQ(accuracy_values, 6);
  EXPECT_TRUE(std::filesystem::exists(job_dir + "/metrics.json"));
  ASSERT_THAT(service_.ExitsCopy(), SizeIs(1));
  EXPECT_THAT(Log(), Not(HasSubstr("warning")));
}

TEST_F(AgentTest, TrainerGetsTheMetricFileAndAppendedRecordsArriveOnce) {
  StartServer();
  SpawnWithTrainer(absl::StrCat(
      R"(test "$CLOUD_ML_HP_METRIC_FILE" = ')", trial_dir_,
      R"(/.vernier/hypertune/output.metrics' || exit 9; for i in 1 2 3 4 5 6; do )",
      R"(printf '{"accuracy": 0.%s, "global_step": %s}\n' $i $i >> "$CLOUD_ML_HP_METRIC_FILE"; )",
      R"(sleep 0.1; done)"));
  ASSERT_EQ(WaitForAgent(), 0) << Log();
  const auto stored = service_.StoredCopy();
  ASSERT_THAT(stored, SizeIs(6)) << Log();
  std::vector<int64_t> steps;
  for (const auto& [sequence_number, measurement] : stored) steps.push_back(measurement.step());
  EXPECT_THAT(steps, ::testing::ElementsAre(1, 2, 3, 4, 5, 6));
  EXPECT_EQ(service_.DuplicatesCopy(), 0);
}

TEST_F(AgentTest, MetricRegexFindsMetricsInTheTrainersOwnFormat) {
  StartServer();
  SpawnWithTrainer(
      "echo 'Epoch 1/2 - loss: 0.9 - val_accuracy: 0.51'; echo 'loss=1 is not read now'; "
      "echo 'Epoch 2/2 - loss: 0.5 - val_accuracy: 0.62'",
      {"--metric-regex",
       R"(Epoch (?P<epoch>\d+)/\d+ - loss: (?P<loss>\S+) - val_accuracy: (?P<accuracy>\S+))"});
  ASSERT_EQ(WaitForAgent(), 0) << Log();
  const auto stored = service_.StoredCopy();
  ASSERT_THAT(stored, SizeIs(2)) << Log();
  EXPECT_EQ(stored.at(2).step(), 2);
  ASSERT_THAT(stored.at(2).metrics(), SizeIs(2));
  EXPECT_EQ(stored.at(2).metrics(0).metric_id(), "accuracy");
  EXPECT_DOUBLE_EQ(stored.at(2).metrics(0).value(), 0.62);
  EXPECT_GT(stored.at(2).report_time().seconds(), 0);
}

TEST_F(AgentTest, InvalidMetricRegexIsASetupFailure) {
  StartServer();
  SpawnWithTrainer("echo never", {"--metric-regex", "loss=([0-9.]+"});
  ASSERT_EQ(WaitForAgent(), 125) << Log();
  const auto exits = service_.ExitsCopy();
  ASSERT_THAT(exits, SizeIs(1));
  EXPECT_THAT(exits[0].log_tail(),
              HasSubstr("vernier-agent: --metric-regex 'loss=([0-9.]+': not a valid RE2 regular "
                        "expression: missing )"));
  EXPECT_THAT(Log(), Not(HasSubstr("program started")));
}

TEST_F(AgentTest, HeartbeatsCarryAStopToATrainerThatReportsNothing) {
  StartServer();
  service_.StopOnHeartbeat("median stopping rule");
  SpawnWithTrainer("trap 'echo got-term; exit 143' TERM; while :; do sleep 0.05; done",
                   {"--heartbeat-interval-ms", "100"});
  ASSERT_EQ(WaitForAgent(), 143) << Log();
  const auto exits = service_.ExitsCopy();
  ASSERT_THAT(exits, SizeIs(1));
  EXPECT_TRUE(exits[0].stopped_by_request());
  EXPECT_THAT(service_.StoredCopy(), SizeIs(0));
  EXPECT_GE(service_.HeartbeatsCopy().size(), 1u);
  EXPECT_THAT(Log(), HasSubstr("the service asked to stop the trial (median stopping rule)"));
}

TEST_F(AgentTest, AStopEndsTheTrainersWholeTreeIncludingOtherSessions) {
  StartServer();
  const std::string dir = sockets_.path();
  SpawnWithTrainer(absl::StrCat("setsid sh -c 'echo $$ > ", dir, "/worker.pid; exec sleep 60' & ",
                                "setsid sh -c 'trap \"\" TERM; echo $$ > ", dir,
                                "/stubborn.pid; while :; do sleep 0.1; done' & ", "while [ ! -s ",
                                dir, "/worker.pid ] || [ ! -s ", dir,
                                "/stubborn.pid ]; do sleep 0.05; done; echo accuracy=0.5; wait"));
  ASSERT_TRUE(WaitForStored(1)) << Log();
  const pid_t worker = std::stoi(ReadFile(dir + "/worker.pid"));
  const pid_t stubborn = std::stoi(ReadFile(dir + "/stubborn.pid"));
  ASSERT_EQ(kill(agent_pid_, SIGTERM), 0);
  ASSERT_TRUE(WaitForAgent().has_value()) << Log();
  for (pid_t pid : {worker, stubborn}) {
    const std::string stat = ReadFile(absl::StrCat("/proc/", pid, "/stat"));
    EXPECT_TRUE(stat.empty() || stat.find(") Z ") != std::string::npos)
        << pid << " outlived the stop: " << stat << Log();
  }
  EXPECT_THAT(Log(), HasSubstr("did not exit within 2s of SIGTERM; sending SIGKILL"));
}

TEST_F(AgentTest, ARestartedAgentResendsOnlyWhatWasNotAcknowledged) {
  StartServer();
  const std::string go = sockets_.path() + "/go";
  SpawnWithTrainer(
      absl::StrCat("for i in 1 2 3; do echo step=$i accuracy=0.$i; done; "
                   "while [ ! -e ",
                   go,
                   " ]; do sleep 0.05; done; echo step=4 accuracy=0.4; "
                   "echo step=5 accuracy=0.5; echo written; exec sleep 60"));
  ASSERT_TRUE(WaitForStored(3)) << Log();
  // Give the acknowledgement time to reach the agent's log, then cut the
  // service off and let the trainer report twice more.
  absl::SleepFor(absl::Milliseconds(500));
  server_->Shutdown();
  server_.reset();
  std::ofstream(go) << "go";
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (Log().find("written") == std::string::npos && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(20));
  }
  absl::SleepFor(absl::Milliseconds(300));
  ASSERT_EQ(kill(agent_pid_, SIGKILL), 0);
  ASSERT_TRUE(WaitForAgent().has_value());
  const size_t requests_before = service_.MeasurementRequestsCopy().size();

  StartServer();
  SpawnWithTrainer("echo step=6 accuracy=0.6");
  ASSERT_EQ(WaitForAgent(), 0) << Log();
  const auto stored = service_.StoredCopy();
  std::vector<int64_t> steps;
  for (const auto& [sequence_number, measurement] : stored) steps.push_back(measurement.step());
  EXPECT_THAT(steps, ::testing::ElementsAre(1, 2, 3, 4, 5, 6)) << Log();
  EXPECT_EQ(service_.DuplicatesCopy(), 0);
  const auto requests = service_.MeasurementRequestsCopy();
  for (size_t i = requests_before; i < requests.size(); ++i) {
    for (const v1::Measurement& measurement : requests[i].measurements()) {
      EXPECT_GT(measurement.sequence_number(), 3) << "resent acknowledged measurement";
    }
  }
  EXPECT_THAT(Log(), HasSubstr("holds 2 measurements an earlier agent left unacknowledged "
                               "(sequence numbers 4..5)"));
}

TEST_F(AgentTest, ASecondAgentOfTheReplicaWaitsForTheFirstAndDoesNotRunTheTrialAgain) {
  // As when a restarted service relaunches a trial it thought never started.
  StartServer();
  const std::string go = sockets_.path() + "/go";
  const std::string second_ran = sockets_.path() + "/second-ran";
  SpawnWithTrainer(absl::StrCat("echo step=1 accuracy=0.5; while [ ! -e ", go,
                                " ]; do sleep 0.05; done; echo step=2 accuracy=0.6"));
  ASSERT_TRUE(WaitForStored(1)) << Log();
  const pid_t first = agent_pid_;
  const std::string first_log = log_path_;
  log_path_ = sockets_.path() + "/second.log";
  SpawnWithTrainer(absl::StrCat("touch ", second_ran, "; echo step=1 accuracy=0.9"),
                   {"--heartbeat-interval-ms", "100"});
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (Log().find("waiting for it to end") == std::string::npos && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(20));
  }
  EXPECT_THAT(Log(), HasSubstr(absl::StrCat("another vernier-agent (pid ", first, ") holds ",
                                            trial_dir_, "/.vernier/master-0/agent.lock")));

  std::ofstream(go) << "go";
  ASSERT_TRUE(service_.WaitFor([&] { return service_.exits().size() == 1; }, absl::Seconds(10)));
  // The service decided the trial on the first agent's report.
  service_.StopOnHeartbeat("the trial is SUCCEEDED");
  int status = 0;
  ASSERT_EQ(waitpid(first, &status, 0), first);
  EXPECT_EQ(WEXITSTATUS(status), 0) << ReadFile(first_log);

  ASSERT_EQ(WaitForAgent(), 0) << Log();
  EXPECT_FALSE(std::filesystem::exists(second_ran)) << "the trial ran twice";
  EXPECT_THAT(Log(), HasSubstr("the trial is over (the trial is SUCCEEDED); the program was not "
                               "started"));
  std::vector<int64_t> steps;
  for (const auto& [sequence_number, measurement] : service_.StoredCopy()) {
    steps.push_back(measurement.step());
  }
  EXPECT_THAT(steps, ::testing::ElementsAre(1, 2));
  EXPECT_THAT(service_.ExitsCopy(), SizeIs(1)) << "the second agent reports no exit";
}

}  // namespace
}  // namespace vernier::agent
