#include "tests/support/slurm_test_cluster.h"

#include <cstdlib>

namespace vernier::testing {

std::string SlurmTestConf() {
  const char* conf = std::getenv("VERNIER_TEST_SLURM_CONF");
  return conf == nullptr ? "" : conf;
}

}  // namespace vernier::testing
