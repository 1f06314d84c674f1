#include "suggest/designers/quasi_random_designer.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "suggest/history_points.h"

namespace vernier::suggest {
namespace {

// Consecutive used points the sequence may hit before random search takes
// over the rest of the batch.
constexpr int kSkipsPerPoint = 1000;

}  // namespace

QuasiRandomDesigner::QuasiRandomDesigner(SearchSpace space, uint64_t seed)
    : space_(space), sequence_(space.dimension(), seed), random_(std::move(space)) {}

absl::StatusOr<Suggestions> QuasiRandomDesigner::Suggest(const DesignerHistory& history, int count,
                                                         std::mt19937_64& rng) {
  if (count < 0) {
    return absl::InvalidArgumentError(absl::StrCat("count must not be negative, got ", count));
  }
  absl::flat_hash_set<std::string> used = UsedPointKeys(history);
  uint64_t index = history.completed.size() + history.pending.size();
  Suggestions suggestions;
  std::vector<double> unit_point(space_.dimension());
  int skipped = 0;
  while (static_cast<int>(suggestions.points.size()) < count && skipped < kSkipsPerPoint) {
    sequence_.Point(index++, unit_point);
    ParameterAssignment point = space_.Decode(unit_point);
    if (used.insert(SearchSpace::Key(point)).second) {
      suggestions.points.push_back(std::move(point));
      skipped = 0;
    } else {
      ++skipped;
    }
  }
  VERNIER_RETURN_IF_ERROR(CompleteBatch(random_, history, count, rng, suggestions));
  return suggestions;
}

}  // namespace vernier::suggest
