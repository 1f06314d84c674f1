#include "tuner/backend_factory.h"

#include <stdlib.h>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/slurm_test_cluster.h"

namespace vernier::tuner {
namespace {

using ::testing::HasSubstr;

// A trial of one replica with `gpus` GPUs.
std::vector<v1::ReplicaSpec> OneReplica(int gpus) {
  v1::ReplicaSpec master;
  master.set_role("master");
  master.set_machine_type("standard_gpu");
  master.set_gpu_count(gpus);
  return {master};
}

TEST(BackendFactoryTest, LocalByDefaultWithAnAdmissionOverTheServersGpus) {
  ServerOptions options;
  options.gpus = {0, 1};
  absl::StatusOr<SchedulerParts> parts = MakeBackend(options);
  ASSERT_TRUE(parts.ok()) << parts.status();
  ASSERT_NE(parts->backend, nullptr);
  ASSERT_NE(parts->admission, nullptr);
  EXPECT_TRUE(parts->admission->GrantsGpus());
  EXPECT_TRUE(parts->admission->CheckCapacity(OneReplica(2), {"ada", "job1"}).ok());
  EXPECT_THAT(parts->admission->CheckCapacity(OneReplica(3), {"ada", "job1"}).message(),
              HasSubstr("this server has 2 GPUs"));
}

TEST(BackendFactoryTest, UnknownSchedulerIsInvalid) {
  ServerOptions options;
  options.scheduler = "kubernetes";
  absl::StatusOr<SchedulerParts> backend = MakeBackend(options);
  EXPECT_EQ(backend.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(backend.status().message(), HasSubstr("\"kubernetes\" is not local or slurm"));
}

TEST(BackendFactoryTest, SlurmThatDoesNotAnswerFailsAtStartNamingTheCommand) {
  const char* previous = std::getenv("SLURM_CONF");
  const std::string saved = previous == nullptr ? "" : previous;
  setenv("SLURM_CONF", "/nonexistent/slurm.conf", 1);
  ServerOptions options;
  options.scheduler = "slurm";
  // sinfo waits for the controller it cannot find until the timeout.
  options.slurm_command_timeout = absl::Seconds(3);
  absl::StatusOr<SchedulerParts> backend = MakeBackend(options);
  if (previous == nullptr) {
    unsetenv("SLURM_CONF");
  } else {
    setenv("SLURM_CONF", saved.c_str(), 1);
  }
  EXPECT_EQ(backend.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(backend.status().message(), HasSubstr("--scheduler slurm: cannot reach Slurm"));
  EXPECT_THAT(backend.status().message(), HasSubstr("sinfo"));
}

TEST(BackendFactoryTest, SlurmAnswersWithTheTestCluster) {
  const std::string conf = testing::SlurmTestConf();
  if (conf.empty()) GTEST_SKIP() << testing::kNoSlurmTestCluster;
  setenv("SLURM_CONF", conf.c_str(), 1);
  ServerOptions options;
  options.scheduler = "slurm";
  absl::StatusOr<SchedulerParts> parts = MakeBackend(options);
  ASSERT_TRUE(parts.ok()) << parts.status();
  // Slurm grants the GPUs: every gang is granted at once, with ports only.
  EXPECT_FALSE(parts->admission->GrantsGpus());
  absl::StatusOr<scheduler::GangTicket> ticket = parts->admission->Request({2}, {"ada", "job1"});
  ASSERT_TRUE(ticket.ok()) << ticket.status();
  EXPECT_TRUE(parts->admission->IsGranted(*ticket));
}

}  // namespace
}  // namespace vernier::tuner
