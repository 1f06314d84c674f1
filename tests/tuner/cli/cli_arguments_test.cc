// The command line itself: usage errors, client-side validation before any
// RPC, dry runs, `serve` flags and an unreachable server.
#include <google/protobuf/util/json_util.h>
#include <stdlib.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/server_process.h"
#include "tests/tuner/cli/cli_test_runner.h"
#include "tuner/cli/cli_app.h"
#include "tuner/cli/serve_command.h"
#include "vernier/v1/job.pb.h"

namespace vernier::cli {
namespace {

using testing::CliRun;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using testing::RunCli;

// Absolute, so that tests may change the working directory afterwards. ctest
// runs the tests in the source directory.
std::string SourcePath(const std::string& relative) {
  const char* root = std::getenv("VERNIER_SOURCE_DIR");
  const std::filesystem::path base = root != nullptr && *root != '\0' ? root : ".";
  return std::filesystem::absolute(base / relative).lexically_normal().string();
}

class CliArgumentsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (std::filesystem::path(::testing::TempDir()) / "vernier_cli_XXXXXX");
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  std::string WriteFile(const std::string& name, const std::string& text) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path) << text;
    return path;
  }

  std::filesystem::path dir_;
};

TEST_F(CliArgumentsTest, SubmitWithoutTrainerCommandIsAUsageError) {
  const CliRun run = RunCli({"jobs", "submit", "training", "job1", "--config",
                             SourcePath("examples/hptuning_config.yaml"), "--job-dir", "/tmp/j"});
  EXPECT_EQ(run.exit_code, kExitUsage);
  EXPECT_THAT(run.err, HasSubstr("the trainer command is missing"));
  EXPECT_THAT(run.err, HasSubstr("-- CMD ARGS..."));
  EXPECT_THAT(run.out, IsEmpty());
}

TEST_F(CliArgumentsTest, GcloudFlagsVernierDoesNotTakeAreNamedWithWhatToDoInstead) {
  CliRun run = RunCli({"jobs", "submit", "training", "job1", "--config", "c.yaml", "--job-dir",
                       "/tmp/j", "--staging-bucket", "gs://b", "--", "python3", "train.py"});
  EXPECT_EQ(run.exit_code, kExitUsage);
  EXPECT_THAT(run.err, HasSubstr("`--staging-bucket` is a gcloud flag that Vernier does not take: "
                                 "it has no meaning for a self-hosted server; drop it"));
  EXPECT_THAT(run.err, Not(HasSubstr("Put the trainer command after")));
  run = RunCli({"jobs", "submit", "training", "job1", "--config", "c.yaml", "--job-dir", "/tmp/j",
                "--scale-tier=BASIC_GPU", "--", "python3", "train.py"});
  EXPECT_EQ(run.exit_code, kExitUsage);
  EXPECT_THAT(run.err, HasSubstr("`--scale-tier` is a gcloud flag that Vernier does not take: it "
                                 "goes in the --config YAML instead: trainingInput.scaleTier"));
  run = RunCli({"jobs", "submit", "training", "job1", "--config", "c.yaml", "--job-dir", "/tmp/j",
                "--async", "--", "python3", "train.py"});
  EXPECT_EQ(run.exit_code, kExitUsage);
  EXPECT_THAT(run.err, HasSubstr("returns once the job is queued (unless given --wait"));
  EXPECT_THAT(run.out, IsEmpty());
}

TEST_F(CliArgumentsTest, VersionPrintsTheVersion) {
  const CliRun run = RunCli({"--version"});
  EXPECT_EQ(run.exit_code, kExitSuccess);
  EXPECT_THAT(run.out, HasSubstr("vernier 0."));
}

TEST_F(CliArgumentsTest, EmptyCommandAfterSeparatorIsAUsageError) {
  const CliRun run = RunCli(
      {"jobs", "submit", "training", "job1", "--config", "c.yaml", "--job-dir", "/tmp/j", "--"});
  EXPECT_EQ(run.exit_code, kExitUsage);
  EXPECT_THAT(run.err, HasSubstr("the trainer command after `--` is empty"));
}

TEST_F(CliArgumentsTest, TrainerCommandTypedWithoutSeparatorGetsAHint) {
  const CliRun run = RunCli({"jobs", "submit", "training", "job1", "--config", "c.yaml",
                             "--job-dir", "/tmp/j", "python3", "train.py", "--lr=0.1"});
  EXPECT_EQ(run.exit_code, kExitUsage);
  EXPECT_THAT(run.err, HasSubstr("unexpected arguments before `--`: python3 train.py --lr=0.1"));
  EXPECT_THAT(run.err, HasSubstr("Put the trainer command after `--`"));
}

TEST_F(CliArgumentsTest, SeparatorIsOnlyForSubmit) {
  const CliRun run = RunCli({"jobs", "list", "--", "python3"});
  EXPECT_EQ(run.exit_code, kExitUsage);
  EXPECT_THAT(run.err, HasSubstr("only accepted by `vernier jobs submit training`"));
}

TEST_F(CliArgumentsTest, UnknownFormatIsAUsageError) {
  const CliRun run = RunCli({"jobs", "list", "--format", "yaml"});
  EXPECT_EQ(run.exit_code, kExitUsage);
  EXPECT_THAT(run.err, HasSubstr("--format"));
  EXPECT_THAT(run.err, HasSubstr("yaml not in {table,json}"));
}

TEST_F(CliArgumentsTest, MissingSubcommandIsAUsageError) {
  EXPECT_EQ(RunCli({}).exit_code, kExitUsage);
  const CliRun run = RunCli({"jobs"});
  EXPECT_EQ(run.exit_code, kExitUsage);
  EXPECT_THAT(run.err, HasSubstr("subcommand is required"));
}

TEST_F(CliArgumentsTest, MissingJobIdIsAUsageError) {
  const CliRun run = RunCli({"jobs", "describe"});
  EXPECT_EQ(run.exit_code, kExitUsage);
  EXPECT_THAT(run.err, HasSubstr("JOB_ID is required"));
}

TEST_F(CliArgumentsTest, UnknownTrialStateIsAUsageError) {
  const CliRun run = RunCli({"trials", "list", "s1", "--state", "active,bogus"});
  EXPECT_EQ(run.exit_code, kExitUsage);
  EXPECT_THAT(run.err, HasSubstr("unknown trial state \"bogus\""));
}

TEST_F(CliArgumentsTest, HelpGoesToStdoutAndSucceeds) {
  const CliRun run = RunCli({"jobs", "--help"});
  EXPECT_EQ(run.exit_code, kExitSuccess);
  EXPECT_THAT(run.out, HasSubstr("stream-logs"));
  EXPECT_THAT(run.err, IsEmpty());
}

TEST_F(CliArgumentsTest, BadJobIdFailsBeforeAnythingIsSent) {
  const CliRun run = RunCli({"jobs", "submit", "training", "1job", "--config",
                             SourcePath("examples/hptuning_config.yaml"), "--job-dir", "/tmp/j",
                             "--dry-run", "--", "/bin/true"});
  EXPECT_EQ(run.exit_code, kExitFailure);
  EXPECT_THAT(run.err,
              HasSubstr("error: INVALID_ARGUMENT: job id \"1job\" must start with a letter"));
  EXPECT_THAT(run.out, IsEmpty());
}

TEST_F(CliArgumentsTest, MissingConfigFileIsNamed) {
  const std::string missing = (dir_ / "nope.yaml").string();
  const CliRun run = RunCli({"jobs", "submit", "training", "job1", "--config", missing, "--job-dir",
                             "/tmp/j", "--dry-run", "--", "/bin/true"});
  EXPECT_EQ(run.exit_code, kExitFailure);
  EXPECT_THAT(run.err, HasSubstr("error: NOT_FOUND: "));
  EXPECT_THAT(run.err, HasSubstr(missing));
}

TEST_F(CliArgumentsTest, ConfigErrorsNameFileLineAndColumn) {
  const std::string config = WriteFile("bad.yaml",
                                       "trainingInput:\n"
                                       "  hyperparameters:\n"
                                       "    goal: MAXIMIZE\n"
                                       "    hyperparameterMetricTag: accuracy\n"
                                       "    maxTrials: 4\n"
                                       "    params:\n"
                                       "      - parameterName: lr\n"
                                       "        type: DOUBLE\n"
                                       "        minValue: 5\n"
                                       "        maxValue: 1\n");
  const CliRun run = RunCli({"jobs", "submit", "training", "job1", "--config", config, "--job-dir",
                             "/tmp/j", "--", "/bin/true"});
  EXPECT_EQ(run.exit_code, kExitFailure);
  EXPECT_THAT(run.err, HasSubstr("error: INVALID_ARGUMENT: " + config + ":"));
  EXPECT_THAT(run.err, HasSubstr("maxValue"));
}

TEST_F(CliArgumentsTest, DryRunPrintsTheCheckedJobAndItsLaunchAndCreatesNothing) {
  vernier::testing::ServerProcess server((dir_ / "data").string());
  server.Start();
  const std::string config = SourcePath("examples/hptuning_config.yaml");
  const std::filesystem::path previous = std::filesystem::current_path();
  std::filesystem::current_path(dir_);
  const std::vector<std::string> submit = {
      "jobs",      "submit",      "training",  "moons_001", "--config",       config,
      "--job-dir", "runs/moons/", "--dry-run", "--server",  server.address(), "--",
      "python3",   "train.py",    "--format",  "json5",     "--epochs",       "5"};
  std::vector<std::string> as_json = submit;
  as_json.insert(as_json.begin() + 11, {"--format", "json"});
  const CliRun run = RunCli(as_json);
  const CliRun text = RunCli(submit);
  std::filesystem::current_path(previous);

  ASSERT_EQ(run.exit_code, kExitSuccess) << run.err;
  v1::Job job;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(run.out, &job).ok()) << run.out;
  EXPECT_EQ(job.job_id(), "moons_001");
  EXPECT_EQ(job.job_dir(), (dir_ / "runs" / "moons").string());
  EXPECT_EQ(job.training_input().job_dir(), job.job_dir());
  // The trainer's own flags, even ones that look like ours, stay its own.
  EXPECT_THAT(std::vector<std::string>(job.command().begin(), job.command().end()),
              ::testing::ElementsAre("python3", "train.py", "--format", "json5", "--epochs", "5"));
  const v1::HyperparameterSpec& hyperparameters = job.training_input().hyperparameters();
  EXPECT_EQ(hyperparameters.goal(), v1::MetricSpec::MAXIMIZE);
  EXPECT_EQ(hyperparameters.hyperparameter_metric_tag(), "accuracy");
  EXPECT_EQ(hyperparameters.max_trials(), 12);
  ASSERT_EQ(hyperparameters.params_size(), 4);
  EXPECT_EQ(hyperparameters.params(0).parameter_name(), "learning_rate");
  EXPECT_EQ(hyperparameters.params(0).scale_type(), v1::ParameterSpec::UNIT_LOG_SCALE);
  // The local backend's preview: the master's command line, as the
  // controller builds it for trial 1.
  EXPECT_THAT(job.launch_preview(), HasSubstr("# master-0: 0 GPU(s)"));
  EXPECT_THAT(job.launch_preview(), HasSubstr("-- python3 train.py --format json5 --epochs 5 "));
  EXPECT_THAT(job.launch_preview(), HasSubstr("--learning_rate="));
  EXPECT_THAT(job.launch_preview(),
              HasSubstr("--job-dir=" + (dir_ / "runs" / "moons" / "1").string()));

  ASSERT_EQ(text.exit_code, kExitSuccess) << text.err;
  EXPECT_THAT(text.out, HasSubstr("# master-0: 0 GPU(s)"));
  EXPECT_THAT(text.out, HasSubstr("--job-dir=" + (dir_ / "runs" / "moons" / "1").string()));

  const CliRun describe = RunCli({"jobs", "describe", "moons_001", "--server", server.address()});
  EXPECT_EQ(describe.exit_code, kExitFailure);
  EXPECT_THAT(describe.err, HasSubstr("NOT_FOUND"));
}

TEST_F(CliArgumentsTest, DryRunErrorsAreTheServersChecks) {
  vernier::testing::ServerProcess server((dir_ / "data").string());
  server.Start();
  // Only the server knows which jobs exist.
  const std::string config = WriteFile("resume.yaml",
                                       "trainingInput:\n"
                                       "  hyperparameters:\n"
                                       "    goal: MAXIMIZE\n"
                                       "    hyperparameterMetricTag: accuracy\n"
                                       "    maxTrials: 4\n"
                                       "    resumePreviousJobId: no_such_job\n"
                                       "    params:\n"
                                       "      - parameterName: lr\n"
                                       "        type: DOUBLE\n"
                                       "        minValue: 0.1\n"
                                       "        maxValue: 1\n");
  const CliRun run =
      RunCli({"jobs", "submit", "training", "job1", "--config", config, "--job-dir", "/tmp/j",
              "--dry-run", "--server", server.address(), "--", "/bin/true"});
  EXPECT_EQ(run.exit_code, kExitFailure);
  EXPECT_THAT(run.err, HasSubstr("NOT_FOUND"));
  EXPECT_THAT(run.err, HasSubstr("job \"no_such_job\" not found"));
  EXPECT_THAT(run.out, IsEmpty());
}

TEST_F(CliArgumentsTest, UnreachableServerIsNamed) {
  const std::string address = "127.0.0.1:" + std::to_string(testing::ClosedLoopbackPort());
  CliDependencies dependencies;
  dependencies.connect_timeout = absl::Milliseconds(500);
  const auto start = std::chrono::steady_clock::now();
  const CliRun run = RunCli({"jobs", "list", "--server", address}, dependencies);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_EQ(run.exit_code, kExitFailure);
  EXPECT_EQ(run.err, "error: UNAVAILABLE: cannot reach the Vernier server at " + address +
                         " (is `vernier serve` running? If it serves TLS, pass --tls-ca CA.pem or "
                         "set VERNIER_TLS_CA)\n");
}

TEST_F(CliArgumentsTest, ServerAddressComesFromTheEnvironmentUnlessGiven) {
  const std::string from_env = "127.0.0.1:" + std::to_string(testing::ClosedLoopbackPort());
  ASSERT_EQ(setenv("VERNIER_SERVER", from_env.c_str(), 1), 0);
  CliDependencies dependencies;
  dependencies.connect_timeout = absl::Milliseconds(200);
  const CliRun from_environment = RunCli({"studies", "list"}, dependencies);
  const CliRun from_flag = RunCli({"studies", "list", "--server", "127.0.0.1:1"}, dependencies);
  unsetenv("VERNIER_SERVER");
  EXPECT_THAT(from_environment.err, HasSubstr("at " + from_env + " "));
  EXPECT_THAT(from_flag.err, HasSubstr("at 127.0.0.1:1 "));
}

TEST_F(CliArgumentsTest, ServeFillsServerOptionsWithAbsolutePaths) {
  tuner::ServerOptions received;
  int calls = 0;
  CliDependencies dependencies;
  dependencies.run_server = [&](const tuner::ServerOptions& options) {
    received = options;
    ++calls;
    return absl::OkStatus();
  };
  const std::filesystem::path previous = std::filesystem::current_path();
  std::filesystem::current_path(dir_);
  const CliRun run = RunCli({"serve",
                             "--host",
                             "0.0.0.0",
                             "--insecure",
                             "--port",
                             "0",
                             "--data-dir",
                             "data",
                             "--db",
                             "state/v.db",
                             "--agent-path",
                             "bin/vernier-agent",
                             "--grace-period-ms",
                             "1500",
                             "--agent-timeout",
                             "3s",
                             "--log-level",
                             "warn",
                             "--podman",
                             "bin/podman"},
                            dependencies);
  std::filesystem::current_path(previous);

  ASSERT_EQ(run.exit_code, kExitSuccess) << run.err;
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(received.host, "0.0.0.0");
  EXPECT_EQ(received.port, 0);
  EXPECT_EQ(received.data_dir, (dir_ / "data").string());
  EXPECT_EQ(received.db_url, (dir_ / "state" / "v.db").string());
  EXPECT_EQ(received.agent_path, (dir_ / "bin" / "vernier-agent").string());
  EXPECT_EQ(received.grace_period, std::chrono::milliseconds(1500));
  EXPECT_EQ(received.agent_timeout, absl::Seconds(3));
  EXPECT_EQ(received.podman_path, (dir_ / "bin" / "podman").string());
  EXPECT_TRUE(received.insecure);
  EXPECT_FALSE(received.tls.enabled());
}

TEST_F(CliArgumentsTest, ServeTlsPathsBecomeAbsoluteAndAgentsCheckTheHostTheyDial) {
  tuner::ServerOptions received;
  CliDependencies dependencies;
  dependencies.run_server = [&](const tuner::ServerOptions& options) {
    received = options;
    return absl::OkStatus();
  };
  const std::filesystem::path previous = std::filesystem::current_path();
  std::filesystem::current_path(dir_);
  const CliRun run = RunCli({"serve",
                             "--host",
                             "0.0.0.0",
                             "--advertise-host",
                             "gpu-head.example",
                             "--data-dir",
                             "d",
                             "--tls-cert",
                             "certs/server.pem",
                             "--tls-key",
                             "certs/server.key",
                             "--tls-ca",
                             "certs/ca.pem",
                             "--tls-client-ca",
                             "certs/ca.pem",
                             "--tls-agent-cert",
                             "certs/agent.pem",
                             "--tls-agent-key",
                             "certs/agent.key",
                             "--tls-reload-interval",
                             "2m"},
                            dependencies);
  std::filesystem::current_path(previous);
  ASSERT_EQ(run.exit_code, kExitSuccess) << run.err;
  const std::string certs = (dir_ / "certs").string();
  EXPECT_EQ(received.tls.cert_path, certs + "/server.pem");
  EXPECT_EQ(received.tls.key_path, certs + "/server.key");
  EXPECT_EQ(received.tls.ca_path, certs + "/ca.pem");
  EXPECT_EQ(received.tls.client_ca_path, certs + "/ca.pem");
  EXPECT_EQ(received.tls.agent_cert_path, certs + "/agent.pem");
  EXPECT_EQ(received.tls.agent_key_path, certs + "/agent.key");
  EXPECT_EQ(received.tls.agent_server_name, "gpu-head.example");
  EXPECT_EQ(received.tls.reload_interval, absl::Minutes(2));
  EXPECT_FALSE(received.insecure);
  const tls::ClientTlsOptions agents = received.tls.ForAgents();
  EXPECT_EQ(agents.ca_path, certs + "/ca.pem");
  EXPECT_EQ(agents.cert_path, certs + "/agent.pem");
  EXPECT_EQ(agents.server_name, "gpu-head.example");
}

TEST_F(CliArgumentsTest, ClientTlsFlagsComeFromTheEnvironmentAndABadFileIsNamed) {
  CliDependencies dependencies;
  dependencies.connect_timeout = absl::Milliseconds(200);
  const std::string missing = (dir_ / "missing-ca.pem").string();
  ASSERT_EQ(setenv("VERNIER_TLS_CA", missing.c_str(), 1), 0);
  const CliRun from_environment =
      RunCli({"studies", "list", "--server", "127.0.0.1:1"}, dependencies);
  unsetenv("VERNIER_TLS_CA");
  EXPECT_EQ(from_environment.exit_code, kExitFailure);
  EXPECT_EQ(from_environment.err,
            "error: INVALID_ARGUMENT: --tls-ca " + missing + ": no such file\n");
  const std::string garbage = WriteFile("garbage.pem", "not PEM\n");
  const CliRun from_flag =
      RunCli({"jobs", "list", "--server", "127.0.0.1:1", "--tls-ca", garbage}, dependencies);
  EXPECT_EQ(from_flag.err, "error: INVALID_ARGUMENT: --tls-ca " + garbage +
                               ": no PEM certificate in it (-----BEGIN CERTIFICATE-----)\n");
  const CliRun half = RunCli(
      {"jobs", "list", "--server", "127.0.0.1:1", "--tls-ca", garbage, "--tls-cert", garbage},
      dependencies);
  EXPECT_THAT(half.err, HasSubstr("--tls-cert needs --tls-key"));
}

TEST_F(CliArgumentsTest, ServePassesDatabaseUrlsThrough) {
  tuner::ServerOptions received;
  CliDependencies dependencies;
  dependencies.run_server = [&](const tuner::ServerOptions& options) {
    received = options;
    return absl::OkStatus();
  };
  ASSERT_EQ(
      RunCli({"serve", "--data-dir", "/srv/v", "--db", "postgresql://u@db/vernier"}, dependencies)
          .exit_code,
      kExitSuccess);
  EXPECT_EQ(received.db_url, "postgresql://u@db/vernier");
  EXPECT_EQ(received.port, 7730);
  EXPECT_EQ(received.host, "127.0.0.1");
  EXPECT_EQ(received.grace_period, std::chrono::milliseconds(10000));
}

TEST_F(CliArgumentsTest, ServeReportsTheServersErrorAndExitsOne) {
  CliDependencies dependencies;
  dependencies.run_server = [](const tuner::ServerOptions&) {
    return absl::UnavailableError("cannot listen on 127.0.0.1:7730 (is another server using it?)");
  };
  const CliRun run = RunCli({"serve", "--data-dir", "/srv/v"}, dependencies);
  EXPECT_EQ(run.exit_code, kExitFailure);
  EXPECT_EQ(run.err,
            "error: UNAVAILABLE: cannot listen on 127.0.0.1:7730 (is another server using it?)\n");
}

TEST_F(CliArgumentsTest, ServeRejectsBadFlagsAsUsageErrors) {
  CliDependencies dependencies;
  dependencies.run_server = [](const tuner::ServerOptions&) { return absl::OkStatus(); };
  EXPECT_EQ(RunCli({"serve", "--port", "70000"}, dependencies).exit_code, kExitUsage);
  EXPECT_EQ(RunCli({"serve", "--grace-period-ms", "-1"}, dependencies).exit_code, kExitUsage);
  const CliRun run = RunCli({"serve", "--log-level", "loud"}, dependencies);
  EXPECT_EQ(run.exit_code, kExitUsage);
  EXPECT_THAT(run.err, HasSubstr("--log-level"));
}

TEST_F(CliArgumentsTest, ServeHttpPortDefaultsTo7731OrAFreePortBesideAFreeGrpcPort) {
  const auto options = [](std::vector<std::string> args) {
    tuner::ServerOptions received;
    CliDependencies dependencies;
    dependencies.run_server = [&](const tuner::ServerOptions& given) {
      received = given;
      return absl::OkStatus();
    };
    args.insert(args.begin(), {"serve", "--data-dir", "/srv/v"});
    EXPECT_EQ(RunCli(args, dependencies).exit_code, kExitSuccess);
    return received;
  };
  EXPECT_EQ(options({}).http_port, 7731);
  EXPECT_TRUE(options({}).serve_http);
  EXPECT_EQ(options({"--port", "0"}).http_port, 0);
  EXPECT_EQ(options({"--port", "0", "--http-port", "8080"}).http_port, 8080);
  EXPECT_EQ(options({"--http-port", "0"}).http_port, 0);
  EXPECT_FALSE(options({"--no-http"}).serve_http);
}

// The error BuildServerOptions gives for `flags` ("" when it accepts them).
std::string ServeError(const ServeFlags& flags) {
  absl::StatusOr<tuner::ServerOptions> options =
      ServeCommand::BuildServerOptions(flags, "/home/ada");
  return options.ok() ? "" : std::string(options.status().message());
}

ServeFlags WithTls() {
  ServeFlags flags;
  flags.tls_cert = "/certs/server.pem";
  flags.tls_key = "/certs/server.key";
  flags.tls_ca = "/certs/ca.pem";
  return flags;
}

TEST(ServeCommandTest, BadHttpPortsAreRefused) {
  ServeFlags flags;
  flags.http_port = 70000;
  EXPECT_EQ(ServeError(flags),
            "--http-port 70000 is not a TCP port (0 to 65535, 0: any free port)");
  flags.http_port = -1;
  EXPECT_EQ(ServeError(flags), "--http-port -1 is not a TCP port (0 to 65535, 0: any free port)");
  flags.http_port = 7730;
  EXPECT_EQ(ServeError(flags), "--http-port 7730 is --port too: gRPC and HTTP need a port each");
  flags.http_port = 8080;
  flags.no_http = true;
  EXPECT_EQ(ServeError(flags), "--http-port and --no-http exclude each other");
}

TEST(ServeCommandTest, NonLoopbackWithoutTlsIsRefusedUnlessInsecure) {
  ServeFlags flags;
  flags.host = "0.0.0.0";
  EXPECT_THAT(ServeError(flags), HasSubstr("refusing to serve on 0.0.0.0 without TLS"));
  EXPECT_THAT(ServeError(flags), HasSubstr("--tls-cert FILE --tls-key FILE"));
  EXPECT_THAT(ServeError(flags), HasSubstr("--insecure"));
  flags.insecure = true;
  EXPECT_EQ(ServeError(flags), "");
  ServeFlags tls = WithTls();
  tls.host = "10.0.0.5";
  EXPECT_EQ(ServeError(tls), "");
  tls.insecure = true;
  EXPECT_THAT(ServeError(tls), HasSubstr("--insecure contradicts --tls-cert"));
  for (const char* loopback : {"127.0.0.1", "localhost", "::1"}) {
    ServeFlags local;
    local.host = loopback;
    EXPECT_EQ(ServeError(local), "") << loopback;
  }
}

TEST(ServeCommandTest, TlsFlagsComeInPairsAndBesideTheCertificate) {
  ServeFlags no_key = WithTls();
  no_key.tls_key.clear();
  EXPECT_EQ(ServeError(no_key), "--tls-cert needs --tls-key");
  ServeFlags no_cert = WithTls();
  no_cert.tls_cert.clear();
  EXPECT_EQ(ServeError(no_cert), "--tls-key needs --tls-cert");
  ServeFlags no_ca = WithTls();
  no_ca.tls_ca.clear();
  EXPECT_THAT(ServeError(no_ca), HasSubstr("--tls-cert needs --tls-ca"));
  ServeFlags ca_alone;
  ca_alone.tls_ca = "/certs/ca.pem";
  EXPECT_EQ(ServeError(ca_alone), "--tls-ca needs --tls-cert and --tls-key, which turn TLS on");
  ServeFlags client_ca_alone;
  client_ca_alone.tls_client_ca = "/certs/ca.pem";
  EXPECT_THAT(ServeError(client_ca_alone), HasSubstr("--tls-client-ca needs --tls-cert"));
}

TEST(ServeCommandTest, MutualTlsNeedsTheAgentsCertificate) {
  ServeFlags mutual = WithTls();
  mutual.tls_client_ca = "/certs/ca.pem";
  EXPECT_THAT(ServeError(mutual),
              HasSubstr("--tls-client-ca (mutual TLS) needs --tls-agent-cert and --tls-agent-key"));
  mutual.tls_agent_cert = "/certs/agent.pem";
  EXPECT_EQ(ServeError(mutual), "--tls-agent-cert needs --tls-agent-key");
  mutual.tls_agent_key = "/certs/agent.key";
  EXPECT_EQ(ServeError(mutual), "");
  ServeFlags agent_without_mutual = WithTls();
  agent_without_mutual.tls_agent_cert = "/certs/agent.pem";
  agent_without_mutual.tls_agent_key = "/certs/agent.key";
  EXPECT_EQ(ServeError(agent_without_mutual),
            "--tls-agent-cert is for mutual TLS: it needs --tls-client-ca");
}

TEST(ServeCommandTest, TlsReloadIntervalIsADurationOfASecondOrMore) {
  ServeFlags flags = WithTls();
  flags.tls_reload_interval = "500ms";
  EXPECT_THAT(ServeError(flags),
              HasSubstr("--tls-reload-interval 500ms is under the shortest, 1s"));
  flags.tls_reload_interval = "soon";
  EXPECT_THAT(ServeError(flags), HasSubstr("--tls-reload-interval \"soon\" is not a duration"));
  flags.tls_reload_interval = "30";
  absl::StatusOr<tuner::ServerOptions> options = ServeCommand::BuildServerOptions(flags, "/h");
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->tls.reload_interval, absl::Seconds(30));
}

TEST(ServeCommandTest, AgentsCheckTheGivenServerNameOrTheHostTheyDial) {
  ServeFlags flags = WithTls();
  flags.host = "0.0.0.0";
  EXPECT_EQ(ServeCommand::BuildServerOptions(flags, "/h")->tls.agent_server_name, "localhost");
  flags.host = "10.0.0.5";
  EXPECT_EQ(ServeCommand::BuildServerOptions(flags, "/h")->tls.agent_server_name, "10.0.0.5");
  flags.tls_server_name = "vernier.example";
  EXPECT_EQ(ServeCommand::BuildServerOptions(flags, "/h")->tls.agent_server_name,
            "vernier.example");
  EXPECT_FALSE(ServeCommand::BuildServerOptions(ServeFlags(), "/h")->tls.enabled());
  EXPECT_FALSE(ServeCommand::BuildServerOptions(ServeFlags(), "/h")->tls.ForAgents().enabled());
}

TEST(ServeCommandTest, DataDirDefaultsToDotVernierUnderHome) {
  absl::StatusOr<tuner::ServerOptions> options =
      ServeCommand::BuildServerOptions(ServeFlags(), "/home/ada");
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->data_dir, "/home/ada/.vernier");
  EXPECT_THAT(options->db_url, IsEmpty());
}

TEST(ServeCommandTest, WithoutHomeTheDataDirMustBeGiven) {
  absl::StatusOr<tuner::ServerOptions> options =
      ServeCommand::BuildServerOptions(ServeFlags(), nullptr);
  EXPECT_EQ(options.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(options.status().message(), HasSubstr("--data-dir is required when HOME is not set"));
}

TEST(ServeCommandTest, SchedulerIsLocalOrSlurmAndSlurmFlagsNeedSlurm) {
  ServeFlags flags;
  flags.data_dir = "/d";
  absl::StatusOr<tuner::ServerOptions> options = ServeCommand::BuildServerOptions(flags, nullptr);
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->scheduler, "local");

  flags.scheduler = "slurm";
  flags.slurm_partition = "gpu";
  flags.advertise_host = "login1";
  options = ServeCommand::BuildServerOptions(flags, nullptr);
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->scheduler, "slurm");
  EXPECT_EQ(options->slurm_partition, "gpu");
  EXPECT_EQ(options->advertise_host, "login1");

  flags.scheduler = "pbs";
  options = ServeCommand::BuildServerOptions(flags, nullptr);
  EXPECT_EQ(options.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(options.status().message(), HasSubstr("--scheduler \"pbs\" is not local or slurm"));

  flags.scheduler = "local";
  options = ServeCommand::BuildServerOptions(flags, nullptr);
  EXPECT_THAT(options.status().message(), HasSubstr("--slurm-partition needs --scheduler slurm"));
}

TEST(ServeCommandTest, TrialUserIsPassedOnAndNeedsTheLocalScheduler) {
  ServeFlags flags;
  flags.data_dir = "/d";
  flags.trial_user = "trainer";
  absl::StatusOr<tuner::ServerOptions> options = ServeCommand::BuildServerOptions(flags, nullptr);
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->trial_user, "trainer");

  flags.scheduler = "slurm";
  options = ServeCommand::BuildServerOptions(flags, nullptr);
  EXPECT_EQ(options.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(options.status().message(),
              HasSubstr("--trial-user needs --scheduler local: on Slurm every trial is an sbatch "
                        "job of the user who runs the server"));
}

TEST(ServeCommandTest, SlurmCommandTimeoutIsADurationAndNeedsSlurm) {
  ServeFlags flags;
  flags.data_dir = "/d";
  flags.scheduler = "slurm";
  absl::StatusOr<tuner::ServerOptions> options = ServeCommand::BuildServerOptions(flags, nullptr);
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->slurm_command_timeout, absl::Seconds(30));

  flags.slurm_command_timeout = "2m";
  options = ServeCommand::BuildServerOptions(flags, nullptr);
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->slurm_command_timeout, absl::Minutes(2));

  for (const char* bad : {"soon", "0", "-5s"}) {
    flags.slurm_command_timeout = bad;
    options = ServeCommand::BuildServerOptions(flags, nullptr);
    EXPECT_EQ(options.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(options.status().message(), HasSubstr("--slurm-command-timeout"));
    EXPECT_THAT(options.status().message(), HasSubstr(bad));
  }

  flags.scheduler = "local";
  flags.slurm_command_timeout = "10s";
  options = ServeCommand::BuildServerOptions(flags, nullptr);
  EXPECT_THAT(options.status().message(),
              HasSubstr("--slurm-command-timeout needs --scheduler slurm"));
}

TEST_F(CliArgumentsTest, ServeTakesGpuSharesQuotasAndSlurmAccounts) {
  const auto options = [](std::vector<std::string> args) {
    tuner::ServerOptions received;
    CliDependencies dependencies;
    dependencies.run_server = [&](const tuner::ServerOptions& given) {
      received = given;
      return absl::OkStatus();
    };
    args.insert(args.begin(), {"serve", "--data-dir", "/srv/v", "--gpus", "0,1"});
    const CliRun run = RunCli(args, dependencies);
    EXPECT_EQ(run.exit_code, kExitSuccess) << run.err;
    return received;
  };
  const tuner::ServerOptions local =
      options({"--gpu-share", "alice=2", "--gpu-share", "bob=0.5,carol=1", "--gpu-quota-per-user",
               "4", "--gpu-quota", "carol=1", "--gpu-quota-per-job", "3"});
  EXPECT_EQ(local.gpu_share.WeightOf("alice"), 2);
  EXPECT_EQ(local.gpu_share.WeightOf("bob"), 0.5);
  EXPECT_EQ(local.gpu_share.WeightOf("carol"), 1);
  EXPECT_EQ(local.gpu_share.WeightOf("dave"), 1);
  EXPECT_EQ(local.gpu_share.QuotaOf("alice"), 4);
  EXPECT_EQ(local.gpu_share.QuotaOf("carol"), 1);
  EXPECT_EQ(local.gpu_share.quota_per_job, 3);
  // No flags: everyone weighs 1, no quotas.
  const tuner::ServerOptions plain = options({});
  EXPECT_TRUE(plain.gpu_share.weights.empty());
  EXPECT_EQ(plain.gpu_share.QuotaOf("alice"), std::nullopt);
  EXPECT_EQ(plain.gpu_share.quota_per_job, std::nullopt);
  EXPECT_FALSE(plain.slurm_account_from_owner);
}

TEST(ServeCommandTest, BadGpuSharesAndQuotasAreRefusedNamingTheFlagAndValue) {
  const auto error = [](const std::function<void(ServeFlags&)>& set) {
    ServeFlags flags;
    set(flags);
    return ServeError(flags);
  };
  EXPECT_EQ(error([](ServeFlags& f) { f.gpu_shares = {"alice"}; }),
            "--gpu-share \"alice\" is not USER=WEIGHT");
  EXPECT_EQ(error([](ServeFlags& f) { f.gpu_shares = {"=2"}; }),
            "--gpu-share \"=2\" is not USER=WEIGHT");
  EXPECT_EQ(error([](ServeFlags& f) { f.gpu_shares = {"alice="}; }),
            "--gpu-share \"alice=\" is not USER=WEIGHT");
  EXPECT_EQ(error([](ServeFlags& f) {
              f.gpu_shares = {"alice=1", "alice=2"};
            }),
            "--gpu-share names alice twice");
  for (const char* weight : {"heavy", "0", "-1", "inf", "nan"}) {
    EXPECT_EQ(
        error([&](ServeFlags& f) { f.gpu_shares = {absl::StrCat("alice=", weight)}; }),
        absl::StrCat("--gpu-share alice=", weight, ": the weight is not a number more than 0"));
  }
  for (const char* quota : {"many", "0", "-2", "1.5"}) {
    EXPECT_EQ(error([&](ServeFlags& f) { f.gpu_quota_per_user = quota; }),
              absl::StrCat("--gpu-quota-per-user \"", quota,
                           "\" is not a number of GPUs (a whole number, 1 or more)"));
    EXPECT_EQ(error([&](ServeFlags& f) { f.gpu_quota_per_job = quota; }),
              absl::StrCat("--gpu-quota-per-job \"", quota,
                           "\" is not a number of GPUs (a whole number, 1 or more)"));
  }
  EXPECT_EQ(error([](ServeFlags& f) { f.gpu_quotas = {"bob=0"}; }), "");
  EXPECT_EQ(error([](ServeFlags& f) { f.gpu_quotas = {"bob=-1"}; }),
            "--gpu-quota bob=-1 is not a number of GPUs (a whole number, 0 or more)");
  EXPECT_EQ(error([](ServeFlags& f) { f.gpu_quotas = {"bob"}; }),
            "--gpu-quota \"bob\" is not USER=GPUS");
  EXPECT_EQ(error([](ServeFlags& f) {
              f.scheduler = "slurm";
              f.gpu_quota_per_job = "2";
            }),
            "--gpu-share and --gpu-quota* are for --scheduler local; on Slurm, Slurm's own fair "
            "share applies (--slurm-account, --slurm-qos; docs/slurm.md)");
}

TEST(ServeCommandTest, SlurmAccountsAndQosAreForSlurmAndOneWordEach) {
  ServeFlags flags;
  flags.scheduler = "slurm";
  flags.slurm_accounts = {"alice=physics", "bob=chemistry"};
  flags.slurm_qos = {"alice=high"};
  flags.slurm_account_from_owner = true;
  absl::StatusOr<tuner::ServerOptions> options = ServeCommand::BuildServerOptions(flags, "/h");
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->slurm_accounts.at("alice"), "physics");
  EXPECT_EQ(options->slurm_accounts.at("bob"), "chemistry");
  EXPECT_EQ(options->slurm_qos.at("alice"), "high");
  EXPECT_TRUE(options->slurm_account_from_owner);

  flags.slurm_accounts = {"alice=my account"};
  EXPECT_EQ(ServeError(flags), "--slurm-account alice=\"my account\": a Slurm name has no spaces");
  flags.slurm_accounts = {"alice=physics", "alice=chemistry"};
  EXPECT_EQ(ServeError(flags), "--slurm-account names alice twice");
  flags.slurm_accounts = {"physics"};
  EXPECT_EQ(ServeError(flags), "--slurm-account \"physics\" is not USER=ACCOUNT");
  flags.slurm_accounts = {};
  flags.slurm_qos = {"alice=hi\tgh"};
  EXPECT_EQ(ServeError(flags), "--slurm-qos alice=\"hi\tgh\": a Slurm name has no spaces");

  for (const auto& [flag, set] :
       std::vector<std::pair<std::string, std::function<void(ServeFlags&)>>>{
           {"--slurm-account", [](ServeFlags& f) { f.slurm_accounts = {"a=b"}; }},
           {"--slurm-account-from-owner", [](ServeFlags& f) { f.slurm_account_from_owner = true; }},
           {"--slurm-qos", [](ServeFlags& f) { f.slurm_qos = {"a=b"}; }}}) {
    ServeFlags local;
    set(local);
    EXPECT_EQ(ServeError(local), flag + " needs --scheduler slurm");
  }
}

TEST(ServeCommandTest, RejectsPortsAndGracePeriodsOutOfRange) {
  ServeFlags flags;
  flags.data_dir = "/d";
  flags.port = 65536;
  absl::StatusOr<tuner::ServerOptions> options = ServeCommand::BuildServerOptions(flags, nullptr);
  EXPECT_EQ(options.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(options.status().message(), HasSubstr("--port 65536 is not a TCP port"));

  flags.port = 7730;
  flags.grace_period_ms = -5;
  options = ServeCommand::BuildServerOptions(flags, nullptr);
  EXPECT_EQ(options.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(options.status().message(), HasSubstr("--grace-period-ms -5 is negative"));
}

TEST(ServeCommandTest, ReplicaPortsAreARange) {
  ServeFlags flags;
  flags.data_dir = "/d";
  flags.replica_ports = "31000-31009";
  absl::StatusOr<tuner::ServerOptions> options = ServeCommand::BuildServerOptions(flags, nullptr);
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->replica_ports.first, 31000);
  EXPECT_EQ(options->replica_ports.last, 31009);
  flags.replica_ports = "31009-31000";
  options = ServeCommand::BuildServerOptions(flags, nullptr);
  EXPECT_EQ(options.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(options.status().message(),
              HasSubstr("--replica-ports: port range \"31009-31000\" starts after it ends"));
}

TEST(ServeCommandTest, AgentTimeoutTakesDurationsOrPlainSeconds) {
  ServeFlags flags;
  flags.data_dir = "/d";
  EXPECT_EQ(ServeCommand::BuildServerOptions(flags, nullptr)->agent_timeout, absl::Seconds(60));
  for (const auto& [text, expected] :
       std::vector<std::pair<std::string, absl::Duration>>{{"2s", absl::Seconds(2)},
                                                           {"1m30s", absl::Seconds(90)},
                                                           {"500ms", absl::Milliseconds(500)},
                                                           {"45", absl::Seconds(45)},
                                                           {"0", absl::ZeroDuration()}}) {
    flags.agent_timeout = text;
    absl::StatusOr<tuner::ServerOptions> options = ServeCommand::BuildServerOptions(flags, nullptr);
    ASSERT_TRUE(options.ok()) << text << ": " << options.status();
    EXPECT_EQ(options->agent_timeout, expected) << text;
  }
}

TEST(ServeCommandTest, RejectsAgentTimeoutsThatAreNoDurations) {
  ServeFlags flags;
  flags.data_dir = "/d";
  flags.agent_timeout = "soon";
  absl::StatusOr<tuner::ServerOptions> options = ServeCommand::BuildServerOptions(flags, nullptr);
  EXPECT_EQ(options.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(options.status().message(),
              HasSubstr("--agent-timeout \"soon\" is not a duration; use e.g. 30s, 2m"));
  flags.agent_timeout = "-5s";
  options = ServeCommand::BuildServerOptions(flags, nullptr);
  EXPECT_THAT(options.status().message(), HasSubstr("--agent-timeout -5s is negative"));
}

TEST(ServeCommandTest, TakesALeaseTimeAndRejectsABadOne) {
  ServeFlags flags;
  flags.data_dir = "/d";
  absl::StatusOr<tuner::ServerOptions> options = ServeCommand::BuildServerOptions(flags, nullptr);
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->lease_time, absl::Seconds(10));
  flags.lease_time = "3s";
  options = ServeCommand::BuildServerOptions(flags, nullptr);
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->lease_time, absl::Seconds(3));
  for (const char* bad : {"0", "0s", "-2s", "later"}) {
    flags.lease_time = bad;
    options = ServeCommand::BuildServerOptions(flags, nullptr);
    EXPECT_EQ(options.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(options.status().message(), HasSubstr("--lease-time")) << bad;
  }
  flags.lease_time = "0";
  EXPECT_THAT(ServeCommand::BuildServerOptions(flags, nullptr).status().message(),
              HasSubstr("--lease-time 0 must be more than 0"));
}

TEST(ServeCommandTest, TakesAStoreOutageLimitAndRejectsABadOne) {
  ServeFlags flags;
  flags.data_dir = "/d";
  absl::StatusOr<tuner::ServerOptions> options = ServeCommand::BuildServerOptions(flags, nullptr);
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->store_outage_limit, absl::Minutes(10));
  flags.store_outage_limit = "90s";
  options = ServeCommand::BuildServerOptions(flags, nullptr);
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->store_outage_limit, absl::Seconds(90));
  for (const char* bad : {"0", "-1m", "a while"}) {
    flags.store_outage_limit = bad;
    options = ServeCommand::BuildServerOptions(flags, nullptr);
    EXPECT_EQ(options.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(options.status().message(), HasSubstr("--store-outage-limit")) << bad;
  }
}

TEST_F(CliArgumentsTest, ServeNamesABadAgentTimeout) {
  CliDependencies dependencies;
  dependencies.run_server = [](const tuner::ServerOptions&) { return absl::OkStatus(); };
  const CliRun bad =
      RunCli({"serve", "--data-dir", "/srv/v", "--agent-timeout", "x"}, dependencies);
  EXPECT_EQ(bad.exit_code, kExitFailure);
  EXPECT_THAT(bad.err, HasSubstr("--agent-timeout \"x\" is not a duration"));
}

TEST(HeartbeatIntervalTest, IsAQuarterOfTheTimeoutWithinBounds) {
  EXPECT_EQ(tuner::HeartbeatIntervalFor(absl::Seconds(60)), std::chrono::milliseconds(5000));
  EXPECT_EQ(tuner::HeartbeatIntervalFor(absl::Seconds(2)), std::chrono::milliseconds(500));
  EXPECT_EQ(tuner::HeartbeatIntervalFor(absl::Milliseconds(100)), std::chrono::milliseconds(100));
  EXPECT_EQ(tuner::HeartbeatIntervalFor(absl::ZeroDuration()), std::chrono::milliseconds(5000));
}

}  // namespace
}  // namespace vernier::cli
