#ifndef VERNIER_SUGGEST_DESIGNER_H_
#define VERNIER_SUGGEST_DESIGNER_H_

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "suggest/search_space.h"
#include "vernier/v1/study.pb.h"

namespace vernier::suggest {

// What a designer knows of one trial: where it is and, once it ended, how it
// did. `objective` is the value as reported (the designer knows the goal).
struct TrialObservation {
  int64_t trial_id = 0;
  ParameterAssignment parameters;
  v1::Trial::State state = v1::Trial::ACTIVE;
  // Set for SUCCEEDED and STOPPED_EARLY trials that reported the objective.
  std::optional<double> objective;
  // Every metric of the study's spec in its order (objectives and outcome
  // constraints, as reported), for SUCCEEDED and STOPPED_EARLY trials;
  // nullopt where the trial did not report one. Designers of one objective
  // read `objective` only.
  std::vector<std::optional<double>> metrics = {};
};

struct DesignerHistory {
  // Ended trials: SUCCEEDED, STOPPED_EARLY, INFEASIBLE, FAILED.
  std::vector<TrialObservation> completed;
  // Trials still running or handed out: REQUESTED, ACTIVE, STOPPING.
  std::vector<TrialObservation> pending;
};

struct Suggestions {
  std::vector<ParameterAssignment> points;
  // Why fewer points than asked for came back (e.g. "the grid of 24 points
  // is exhausted"); empty otherwise.
  std::string shortfall_reason;
  // Why a model-based designer fell back to a simpler one for this call
  // (e.g. "the Gaussian-process model failed: ..."); empty otherwise. The
  // points are still valid suggestions. (The initializer keeps
  // `Suggestions{points, reason}` free of missing-initializer warnings.)
  std::string fallback_reason = {};
};

// Proposes new points from the history of a study. Pure: no I/O, no clock,
// all randomness from `rng`, so the same history and rng state give the same
// suggestions. Never proposes a point already in the history or twice in one
// batch where the space has room for new ones.
class Designer {
 public:
  virtual ~Designer() = default;
  virtual absl::StatusOr<Suggestions> Suggest(const DesignerHistory& history, int count,
                                              std::mt19937_64& rng) = 0;
};

}  // namespace vernier::suggest

#endif  // VERNIER_SUGGEST_DESIGNER_H_
