#ifndef VERNIER_SUGGEST_HISTORY_POINTS_H_
#define VERNIER_SUGGEST_HISTORY_POINTS_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "suggest/designer.h"

namespace vernier::suggest {

// SearchSpace::Key of every trial of the history, ended or pending: the
// points a designer must not propose again.
absl::flat_hash_set<std::string> UsedPointKeys(const DesignerHistory& history);

// The history with `points` (a batch being built) added as pending trials,
// for handing the rest of a batch to another designer.
DesignerHistory WithPendingPoints(const DesignerHistory& history,
                                  const std::vector<ParameterAssignment>& points);

}  // namespace vernier::suggest

#endif  // VERNIER_SUGGEST_HISTORY_POINTS_H_
