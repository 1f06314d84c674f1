#ifndef VERNIER_SUGGEST_DESIGNERS_DESIGNER_FACTORY_H_
#define VERNIER_SUGGEST_DESIGNERS_DESIGNER_FACTORY_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "suggest/designer.h"
#include "vernier/v1/study.pb.h"

namespace vernier::suggest {

// The designer for a study's algorithm. INVALID_ARGUMENT when the algorithm
// cannot serve the space (GRID_SEARCH over a DOUBLE parameter).
absl::StatusOr<std::unique_ptr<Designer>> MakeDesigner(const v1::StudySpec& spec);

// What runs for a spec's algorithm, in words for `jobs describe`, e.g.
// "GAUSSIAN_PROCESS_BANDIT (ALGORITHM_UNSPECIFIED uses Gaussian-process
// Bayesian optimisation after a quasi-random start)".
std::string DescribeAlgorithm(const v1::StudySpec& spec);

// The algorithm that runs for a spec: its own, or GAUSSIAN_PROCESS_BANDIT for
// ALGORITHM_UNSPECIFIED.
v1::Algorithm RunningAlgorithm(const v1::StudySpec& spec);

}  // namespace vernier::suggest

#endif  // VERNIER_SUGGEST_DESIGNERS_DESIGNER_FACTORY_H_
