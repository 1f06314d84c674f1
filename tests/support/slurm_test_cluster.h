#ifndef VERNIER_TESTS_SUPPORT_SLURM_TEST_CLUSTER_H_
#define VERNIER_TESTS_SUPPORT_SLURM_TEST_CLUSTER_H_

#include <string>

namespace vernier::testing {

// Why a Slurm test skips: no test cluster.
inline constexpr char kNoSlurmTestCluster[] =
    "VERNIER_TEST_SLURM_CONF is unset: no Slurm test cluster (scripts/test.sh starts one with "
    "scripts/slurm-up.sh)";

// The slurm.conf of the test cluster scripts/slurm-up.sh started
// ($VERNIER_TEST_SLURM_CONF); empty when there is none.
std::string SlurmTestConf();

}  // namespace vernier::testing

#endif  // VERNIER_TESTS_SUPPORT_SLURM_TEST_CLUSTER_H_
