// Issue 19's "done when": a server on an address off loopback, with TLS and
// API tokens, serves the CLI, the Python client and the agents of a real
// job, on the local backend and on the Slurm test cluster
// (VERNIER_TEST_SLURM_CONF; skipped without it). The address is this
// machine's first IPv4 address off 127.0.0.0/8 (skipped when it has none).

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/ascii.h"
#include "google/protobuf/util/json_util.h"
#include "tests/support/job_client.h"
#include "tests/support/non_loopback_address.h"
#include "tests/support/server_process.h"
#include "tests/support/slurm_test_cluster.h"
#include "tests/support/subprocess.h"
#include "tests/support/test_certificates.h"
#include "vernier/v1/job_service.pb.h"

namespace vernier::testing {
namespace {

using ::testing::HasSubstr;

class TeamServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    host_ = NonLoopbackAddress();
    if (host_.empty()) GTEST_SKIP() << "this machine has no IPv4 address off loopback";
  }

  // `vernier ARGS --server HOST:PORT --tls-ca CA` with `token`.
  CommandResult Vernier(const ServerProcess& server, std::vector<std::string> args,
                        const std::string& token) {
    args.insert(args.begin(), BinaryPath("vernier"));
    // Before the trainer command's `--`, if any.
    args.insert(std::find(args.begin(), args.end(), "--"),
                {"--server", Address(server), "--tls-ca", certs_->Path("ca.pem")});
    return RunCommand(args, std::chrono::seconds(120), {{"VERNIER_TOKEN", token}});
  }
  std::string Address(const ServerProcess& server) const {
    return host_ + ":" + std::to_string(server.port());
  }

  // Runs a job through the CLI as a developer, then the Python client as
  // that developer, on a server started with `scheduler_flags`.
  void ServeTheTeam(std::vector<std::string> scheduler_flags) {
    const bool slurm = !scheduler_flags.empty();
    certs_ = std::make_unique<TestCertificates>(std::vector<std::string>{host_}, "alice");
    std::vector<std::string> flags = {"--host",     host_,
                                      "--tls-cert", certs_->Path("server.pem"),
                                      "--tls-key",  certs_->Path("server.key"),
                                      "--tls-ca",   certs_->Path("ca.pem")};
    flags.insert(flags.end(), scheduler_flags.begin(), scheduler_flags.end());
    ServerProcess server(dir_.path() + "/data", 0, flags);
    server.Start();
    EXPECT_THAT(server.log(), HasSubstr(", TLS)"));
    const std::string admin(
        absl::StripAsciiWhitespace(ReadFile(server.data_dir() + "/admin.token")));

    const CommandResult created =
        Vernier(server, {"tokens", "create", "--user", "dora", "--role", "developer"}, admin);
    ASSERT_EQ(created.exit_code, 0) << created.err;
    const std::string dora = FirstLine(created.out);
    // A bad token: refused.
    const CommandResult stranger = Vernier(server, {"jobs", "list"}, "vnr_not_a_token");
    EXPECT_NE(stranger.exit_code, 0);
    EXPECT_THAT(stranger.err, HasSubstr("UNAUTHENTICATED"));

    const std::string config = dir_.path() + "/hp.yaml";
    WriteFile(config, SmallConfig(/*max_trials=*/2, /*parallel=*/2, /*max_failed=*/0));
    const CommandResult submitted =
        Vernier(server,
                {"jobs", "submit", "training", "team_job", "--config", config, "--job-dir",
                 dir_.path() + "/runs", "--", "python3", SourcePath("examples/trainer/train.py"),
                 "--epochs", "2"},
                dora);
    ASSERT_EQ(submitted.exit_code, 0) << submitted.err;
    v1::GetJobResponse job;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(240);
    while (std::chrono::steady_clock::now() < deadline) {
      const CommandResult described =
          Vernier(server, {"jobs", "describe", "team_job", "--format", "json"}, dora);
      ASSERT_EQ(described.exit_code, 0) << described.err;
      ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(described.out, &job).ok());
      if (Ended(job)) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
    ASSERT_EQ(job.job().state(), v1::Job::SUCCEEDED) << job.DebugString() << server.log();
    EXPECT_EQ(job.job().owner(), "dora");
    EXPECT_EQ(job.trial_counts().succeeded(), 2);
    for (const v1::TrialRun& run : job.trial_runs()) {
      EXPECT_THAT(run.backend_handle(), ::testing::StartsWith(slurm ? "slurm:" : "local:"));
    }
    const CommandResult logs = Vernier(server, {"jobs", "stream-logs", "team_job"}, dora);
    EXPECT_EQ(logs.exit_code, 0) << logs.err;
    EXPECT_THAT(logs.out, HasSubstr("epoch=1"));

    // The Python client: a study of its own, a suggestion, a completion.
    const std::string script =
        "import sys, vernier\n"
        "client = vernier.Client(sys.argv[1], tls_ca=sys.argv[2], token=sys.argv[3])\n"
        "study = client.create_study('py_team', {'goal': 'MINIMIZE', "
        "'hyperparameterMetricTag': 'loss', 'algorithm': 'RANDOM_SEARCH', 'params': "
        "[{'parameterName': 'x', 'type': 'DOUBLE', 'minValue': -5, 'maxValue': 5}]})\n"
        "trial = study.suggest(1)[0]\n"
        "trial.complete(loss=1.5)\n"
        "print('studies', sorted(s.name for s in client.list_studies()))\n";
    const CommandResult python = RunCommand(
        {"/usr/bin/python3", "-c", script, Address(server), certs_->Path("ca.pem"), dora},
        std::chrono::seconds(120),
        {{"PYTHONPATH", SourcePath("python") + ":" + std::getenv("VERNIER_BUILD_DIR") + "/python"},
         {"PYTHONDONTWRITEBYTECODE", "1"}});
    EXPECT_EQ(python.exit_code, 0) << python.out << python.err;
    EXPECT_THAT(python.out, HasSubstr("py_team"));
    EXPECT_THAT(python.out, HasSubstr("team_job"));
  }

  std::string host_;
  TempDir dir_;
  std::unique_ptr<TestCertificates> certs_;
};

TEST_F(TeamServerTest, ServesTheCliThePythonClientAndTheAgentsOfAJobLocally) { ServeTheTeam({}); }

TEST_F(TeamServerTest, ServesTheCliThePythonClientAndTheAgentsOfAJobOnSlurm) {
  const std::string conf = SlurmTestConf();
  if (conf.empty()) GTEST_SKIP() << kNoSlurmTestCluster;
  setenv("SLURM_CONF", conf.c_str(), 1);
  ServeTheTeam({"--scheduler", "slurm", "--advertise-host", host_});
}

}  // namespace
}  // namespace vernier::testing
