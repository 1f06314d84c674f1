#ifndef VERNIER_SUGGEST_HISTORY_POINTS_H_
#define VERNIER_SUGGEST_HISTORY_POINTS_H_

#include <random>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "suggest/designer.h"

namespace vernier::suggest {

// SearchSpace::Key of every trial of the history, ended or pending: the
// points a designer must not propose again.
absl::flat_hash_set<std::string> UsedPointKeys(const DesignerHistory& history);

// Fills `suggestions` up to `count` points from `designer`, which sees the
// points already in the batch as pending trials; its shortfall_reason, if
// any, becomes the batch's.
absl::Status CompleteBatch(Designer& designer, const DesignerHistory& history, int count,
                           std::mt19937_64& rng, Suggestions& suggestions);

}  // namespace vernier::suggest

#endif  // VERNIER_SUGGEST_HISTORY_POINTS_H_
