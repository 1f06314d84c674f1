#include "suggest/history_points.h"

namespace vernier::suggest {

absl::flat_hash_set<std::string> UsedPointKeys(const DesignerHistory& history) {
  absl::flat_hash_set<std::string> used;
  for (const auto* trials : {&history.completed, &history.pending}) {
    for (const TrialObservation& trial : *trials) used.insert(SearchSpace::Key(trial.parameters));
  }
  return used;
}

absl::Status CompleteBatch(Designer& designer, const DesignerHistory& history, int count,
                           std::mt19937_64& rng, Suggestions& suggestions) {
  const int missing = count - static_cast<int>(suggestions.points.size());
  if (missing <= 0) return absl::OkStatus();
  DesignerHistory extended = history;
  for (const ParameterAssignment& point : suggestions.points) {
    TrialObservation pending;
    pending.parameters = point;
    pending.state = v1::Trial::ACTIVE;
    extended.pending.push_back(std::move(pending));
  }
  absl::StatusOr<Suggestions> rest = designer.Suggest(extended, missing, rng);
  if (!rest.ok()) return rest.status();
  for (ParameterAssignment& point : rest->points) suggestions.points.push_back(std::move(point));
  suggestions.shortfall_reason = std::move(rest->shortfall_reason);
  return absl::OkStatus();
}

}  // namespace vernier::suggest
