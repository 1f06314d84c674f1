#include "suggest/designers/grid_search_designer.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "suggest/history_points.h"

namespace vernier::suggest {
namespace {

// The integer in [1, size) coprime with size nearest size * (golden ratio -
// 1), looking above before below; 0 for a grid of one point.
uint64_t GoldenStep(uint64_t size) {
  if (size <= 1) return 0;
  const long double golden_fraction = (std::sqrt(5.0L) - 1.0L) / 2.0L;
  const uint64_t centre = std::clamp<uint64_t>(
      static_cast<uint64_t>(std::llround(static_cast<long double>(size) * golden_fraction)), 1,
      size - 1);
  for (uint64_t distance = 0;; ++distance) {
    if (const uint64_t above = centre + distance; above < size && std::gcd(above, size) == 1) {
      return above;
    }
    // 1 is coprime with every size, so the search ends by then at the latest.
    if (const uint64_t below = centre - distance; distance < centre && std::gcd(below, size) == 1) {
      return below;
    }
  }
}

}  // namespace

absl::StatusOr<std::unique_ptr<GridSearchDesigner>> GridSearchDesigner::Create(SearchSpace space) {
  for (int i = 0; i < space.dimension(); ++i) {
    if (!space.Cardinality(i).has_value()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "GRID_SEARCH cannot enumerate DOUBLE parameter \"",
          space.parameters()[i].parameter_name(), "\"; use DISCRETE values or another algorithm"));
    }
  }
  if (!space.FiniteSize().has_value()) {
    // Name the parameter where the product of the values first overflows
    // (for a conditional space, an upper bound of the tree's size).
    std::string at;
    int64_t product = 1;
    for (int i = 0; i < space.dimension() && at.empty(); ++i) {
      if (__builtin_mul_overflow(product, *space.Cardinality(i), &product)) {
        at = absl::StrCat(" (at parameter \"", space.parameters()[i].parameter_name(), "\")");
      }
    }
    return absl::InvalidArgumentError(
        absl::StrCat("GRID_SEARCH: the grid has more than 2^63 - 1 points", at,
                     "; use fewer values or another algorithm"));
  }
  const int64_t grid_size = *space.FiniteSize();
  return std::unique_ptr<GridSearchDesigner>(new GridSearchDesigner(std::move(space), grid_size));
}

GridSearchDesigner::GridSearchDesigner(SearchSpace space, int64_t grid_size)
    : space_(std::move(space)),
      grid_size_(grid_size),
      step_(GoldenStep(static_cast<uint64_t>(grid_size))) {}

ParameterAssignment GridSearchDesigner::PointAt(int64_t position) const {
  const auto size = static_cast<unsigned __int128>(grid_size_);
  const auto index = static_cast<uint64_t>(static_cast<unsigned __int128>(position) * step_ % size);
  return space_.PointAt(static_cast<int64_t>(index));
}

absl::StatusOr<Suggestions> GridSearchDesigner::Suggest(const DesignerHistory& history, int count,
                                                        std::mt19937_64& rng) {
  if (count < 0) {
    return absl::InvalidArgumentError(absl::StrCat("count must not be negative, got ", count));
  }
  Suggestions suggestions;
  if (count == 0) return suggestions;
  absl::flat_hash_set<std::string> used = UsedPointKeys(history);
  // Each history point is passed over at most once, so the walk ends within
  // |history| + count positions however large the grid is.
  const size_t wanted = static_cast<size_t>(count);
  for (int64_t position = 0; position < grid_size_ && suggestions.points.size() < wanted;
       ++position) {
    ParameterAssignment point = PointAt(position);
    if (used.insert(SearchSpace::Key(point)).second) suggestions.points.push_back(std::move(point));
  }
  if (suggestions.points.size() < wanted) {
    suggestions.shortfall_reason = absl::StrCat("the grid of ", grid_size_, " points is exhausted");
  }
  return suggestions;
}

}  // namespace vernier::suggest
