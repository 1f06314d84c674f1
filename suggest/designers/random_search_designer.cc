#include "suggest/designers/random_search_designer.h"

#include <string>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "suggest/history_points.h"
#include "suggest/random_numbers.h"

namespace vernier::suggest {
namespace {

// A point is redrawn at most this often before the designer falls back to
// enumerating the unused points, or gives up on a space too large for that.
constexpr int kDrawsPerPoint = 1000;
constexpr int64_t kMaxEnumeratedPoints = int64_t{1} << 16;

}  // namespace

RandomSearchDesigner::RandomSearchDesigner(SearchSpace space)
    : space_(std::move(space)), space_size_(space_.FiniteSize()) {}

std::optional<std::vector<ParameterAssignment>> RandomSearchDesigner::EnumerateSpace() const {
  if (!space_size_.has_value() || *space_size_ > kMaxEnumeratedPoints) return std::nullopt;
  std::vector<ParameterAssignment> points;
  points.reserve(*space_size_);
  for (int64_t index = 0; index < *space_size_; ++index) points.push_back(space_.PointAt(index));
  return points;
}

absl::StatusOr<Suggestions> RandomSearchDesigner::Suggest(const DesignerHistory& history, int count,
                                                          std::mt19937_64& rng) {
  if (count < 0) {
    return absl::InvalidArgumentError(absl::StrCat("count must not be negative, got ", count));
  }
  // With a continuous dimension a fresh draw repeats an earlier point with a
  // probability of about 2^-52, so only a finite space pays for collecting
  // the history's points (O(history) per call); the batch is still checked.
  absl::flat_hash_set<std::string> used =
      space_size_.has_value() ? UsedPointKeys(history) : absl::flat_hash_set<std::string>();

  Suggestions suggestions;
  const size_t wanted = static_cast<size_t>(count);
  std::vector<double> unit_point(space_.dimension());
  while (suggestions.points.size() < wanted) {
    bool found = false;
    for (int draw = 0; draw < kDrawsPerPoint && !found; ++draw) {
      for (double& x : unit_point) x = UnitUniform(rng);
      ParameterAssignment point = space_.Decode(unit_point);
      if (used.insert(SearchSpace::Key(point)).second) {
        suggestions.points.push_back(std::move(point));
        found = true;
      }
    }
    if (found) continue;

    // Nearly every point is taken: pick among the unused ones directly.
    std::optional<std::vector<ParameterAssignment>> all_points = EnumerateSpace();
    if (!all_points.has_value()) {
      suggestions.shortfall_reason =
          absl::StrCat("no unused point found in ", kDrawsPerPoint, " random draws");
      break;
    }
    std::vector<ParameterAssignment> unused;
    for (ParameterAssignment& point : *all_points) {
      if (!used.contains(SearchSpace::Key(point))) unused.push_back(std::move(point));
    }
    const size_t missing = wanted - suggestions.points.size();
    for (size_t i = 0; i < unused.size() && i < missing; ++i) {
      std::swap(unused[i], unused[i + UniformIndex(rng, unused.size() - i)]);
      suggestions.points.push_back(unused[i]);
    }
    if (unused.size() < missing) {
      suggestions.shortfall_reason = absl::StrCat(
          "all ", *space_size_, " points of the search space are already in the study's trials");
    }
    break;
  }
  return suggestions;
}

}  // namespace vernier::suggest
