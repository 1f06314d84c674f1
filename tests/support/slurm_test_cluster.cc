#include "tests/support/slurm_test_cluster.h"

#include <cstdlib>
#include <utility>

#include "tests/support/source_script.h"

namespace vernier::testing {

std::string SlurmTestConf() {
  const char* conf = std::getenv("VERNIER_TEST_SLURM_CONF");
  return conf == nullptr ? "" : conf;
}

absl::StatusOr<std::unique_ptr<SlurmTestCluster>> SlurmTestCluster::Start() {
  absl::StatusOr<std::string> dir = RunSourceScript("slurm-up.sh");
  if (!dir.ok()) return dir.status();
  return std::unique_ptr<SlurmTestCluster>(new SlurmTestCluster(*dir));
}

SlurmTestCluster::SlurmTestCluster(std::string dir) : dir_(std::move(dir)) {}

SlurmTestCluster::~SlurmTestCluster() { (void)RunSourceScript("slurm-down.sh", {dir_}); }

std::string SlurmTestCluster::conf() const { return dir_ + "/slurm.conf"; }

absl::Status SlurmTestCluster::StopController() {
  return RunSourceScript("slurmctld-restart.sh", {dir_, "stop"}).status();
}

absl::Status SlurmTestCluster::StartController() {
  return RunSourceScript("slurmctld-restart.sh", {dir_, "start"}).status();
}

}  // namespace vernier::testing
