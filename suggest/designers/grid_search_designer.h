#ifndef VERNIER_SUGGEST_DESIGNERS_GRID_SEARCH_DESIGNER_H_
#define VERNIER_SUGGEST_DESIGNERS_GRID_SEARCH_DESIGNER_H_

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "absl/status/statusor.h"
#include "suggest/designer.h"
#include "suggest/search_space.h"

namespace vernier::suggest {

// GRID_SEARCH: every combination of the parameters' values exactly once over
// the life of a study, in a fixed order that spreads coverage, so a study
// that stops early (maxTrials below the grid size) still saw every value of
// every parameter early on.
//
// The order: grid index p_j = (j * step) mod N for j = 0, 1, ..., with N the
// grid size and step the integer coprime with N nearest N * (golden ratio -
// 1), so j -> p_j is a permutation of 0..N-1; p_j is read as mixed-radix
// digits, the parameter with the most values on the fastest digit
// (SearchSpace::PointAt). Since the
// step is coprime with every radix prefix product, the fastest digit runs
// through all its values in every window of its size, and slower digits
// follow a golden-ratio sequence. Nothing is materialised, so grids up to
// 2^63 - 1 points work, and the order depends on the space alone: a
// designer rebuilt for every call (after a restart, say) continues where
// the history says the study is. The rng is not used.
//
// A conditional space is walked as a tree: a parent value with children
// stands for every assignment of its children, one without children for
// one point, so each distinct set of active values comes exactly once.
class GridSearchDesigner : public Designer {
 public:
  // INVALID_ARGUMENT for a DOUBLE parameter or a grid of more than 2^63 - 1
  // points.
  static absl::StatusOr<std::unique_ptr<GridSearchDesigner>> Create(SearchSpace space);

  // The next `count` points in grid order that are not in the history
  // (completed or pending); fewer, with a shortfall_reason, once the grid is
  // exhausted. INVALID_ARGUMENT when count is negative.
  absl::StatusOr<Suggestions> Suggest(const DesignerHistory& history, int count,
                                      std::mt19937_64& rng) override;

  int64_t grid_size() const { return grid_size_; }
  // The point at `position` (0 <= position < grid_size()) of the order.
  ParameterAssignment PointAt(int64_t position) const;

 private:
  GridSearchDesigner(SearchSpace space, int64_t grid_size);

  SearchSpace space_;
  int64_t grid_size_;
  uint64_t step_;
};

}  // namespace vernier::suggest

#endif  // VERNIER_SUGGEST_DESIGNERS_GRID_SEARCH_DESIGNER_H_
