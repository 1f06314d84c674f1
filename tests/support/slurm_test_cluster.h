#ifndef VERNIER_TESTS_SUPPORT_SLURM_TEST_CLUSTER_H_
#define VERNIER_TESTS_SUPPORT_SLURM_TEST_CLUSTER_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace vernier::testing {

// Why a Slurm test skips: no test cluster.
inline constexpr char kNoSlurmTestCluster[] =
    "VERNIER_TEST_SLURM_CONF is unset: no Slurm test cluster (scripts/test.sh starts one with "
    "scripts/slurm-up.sh)";

// The slurm.conf of the test cluster scripts/slurm-up.sh started
// ($VERNIER_TEST_SLURM_CONF); empty when there is none.
std::string SlurmTestConf();

// A Slurm cluster of a test's own (scripts/slurm-up.sh), whose slurmctld the
// test may stop and start again with the same configuration and state
// (scripts/slurmctld-restart.sh): fault injection, without disturbing the
// suite's shared cluster. Stopped and removed (scripts/slurm-down.sh) when
// the object goes.
class SlurmTestCluster {
 public:
  // UNAVAILABLE with the script's output when the cluster does not start.
  static absl::StatusOr<std::unique_ptr<SlurmTestCluster>> Start();
  ~SlurmTestCluster();
  SlurmTestCluster(const SlurmTestCluster&) = delete;
  SlurmTestCluster& operator=(const SlurmTestCluster&) = delete;

  // DIR/slurm.conf: what SLURM_CONF names for this cluster.
  std::string conf() const;

  // Stops slurmctld (SIGTERM) and waits until it exited; slurmd and the
  // jobs keep running.
  absl::Status StopController();
  // Starts slurmctld again, recovering its jobs, and waits until it answers.
  absl::Status StartController();

 private:
  explicit SlurmTestCluster(std::string dir);

  std::string dir_;
};

}  // namespace vernier::testing

#endif  // VERNIER_TESTS_SUPPORT_SLURM_TEST_CLUSTER_H_
