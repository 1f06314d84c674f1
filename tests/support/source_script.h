#ifndef VERNIER_TESTS_SUPPORT_SOURCE_SCRIPT_H_
#define VERNIER_TESTS_SUPPORT_SOURCE_SCRIPT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace vernier::testing {

// Runs the project's scripts/NAME with `args` (up to 120 s): its stdout,
// stripped, when it exits 0; UNAVAILABLE naming the script, its first
// argument, its exit code and its output otherwise. For the scripts that
// start, stop and restart a test's own PostgreSQL or Slurm.
absl::StatusOr<std::string> RunSourceScript(const std::string& name,
                                            const std::vector<std::string>& args = {});

}  // namespace vernier::testing

#endif  // VERNIER_TESTS_SUPPORT_SOURCE_SCRIPT_H_
