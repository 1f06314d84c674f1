#include "tuner/backend_factory.h"

#include <stdlib.h>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/slurm_test_cluster.h"

namespace vernier::tuner {
namespace {

using ::testing::HasSubstr;

TEST(BackendFactoryTest, LocalByDefaultAndItAllocatesNoGpus) {
  absl::StatusOr<std::unique_ptr<scheduler::Backend>> backend = MakeBackend(ServerOptions());
  ASSERT_TRUE(backend.ok()) << backend.status();
  EXPECT_FALSE((*backend)->AllocatesGpus());
}

TEST(BackendFactoryTest, UnknownSchedulerIsInvalid) {
  ServerOptions options;
  options.scheduler = "kubernetes";
  absl::StatusOr<std::unique_ptr<scheduler::Backend>> backend = MakeBackend(options);
  EXPECT_EQ(backend.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(backend.status().message(), HasSubstr("\"kubernetes\" is not local or slurm"));
}

TEST(BackendFactoryTest, SlurmThatDoesNotAnswerFailsAtStartNamingTheCommand) {
  const char* previous = std::getenv("SLURM_CONF");
  const std::string saved = previous == nullptr ? "" : previous;
  setenv("SLURM_CONF", "/nonexistent/slurm.conf", 1);
  ServerOptions options;
  options.scheduler = "slurm";
  absl::StatusOr<std::unique_ptr<scheduler::Backend>> backend = MakeBackend(options);
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
  absl::StatusOr<std::unique_ptr<scheduler::Backend>> backend = MakeBackend(options);
  ASSERT_TRUE(backend.ok()) << backend.status();
  EXPECT_TRUE((*backend)->AllocatesGpus());
}

}  // namespace
}  // namespace vernier::tuner
