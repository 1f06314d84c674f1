#include "suggest/history_points.h"

namespace vernier::suggest {

absl::flat_hash_set<std::string> UsedPointKeys(const DesignerHistory& history) {
  absl::flat_hash_set<std::string> used;
  for (const auto* trials : {&history.completed, &history.pending}) {
    for (const TrialObservation& trial : *trials) used.insert(SearchSpace::Key(trial.parameters));
  }
  return used;
}

DesignerHistory WithPendingPoints(const DesignerHistory& history,
                                  const std::vector<ParameterAssignment>& points) {
  DesignerHistory extended = history;
  for (const ParameterAssignment& point : points) {
    TrialObservation pending;
    pending.parameters = point;
    pending.state = v1::Trial::ACTIVE;
    extended.pending.push_back(std::move(pending));
  }
  return extended;
}

}  // namespace vernier::suggest
