#ifndef VERNIER_SUGGEST_DESIGNERS_RANDOM_SEARCH_DESIGNER_H_
#define VERNIER_SUGGEST_DESIGNERS_RANDOM_SEARCH_DESIGNER_H_

#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include "absl/status/statusor.h"
#include "suggest/designer.h"
#include "suggest/search_space.h"

namespace vernier::suggest {

// RANDOM_SEARCH: points drawn uniformly from the unit cube and decoded, so
// scales shape the distribution (log scale: log-uniform). A point already in
// the batch, or in the history of a finite space, is drawn again (with a
// continuous dimension a repeat is a 2^-52 event, not worth reading the
// whole history for on every call); when a finite space is nearly
// used up, the unused points are enumerated and picked uniformly, and when
// none is left fewer points come back with a shortfall_reason.
class RandomSearchDesigner : public Designer {
 public:
  explicit RandomSearchDesigner(SearchSpace space);

  // INVALID_ARGUMENT when count is negative.
  absl::StatusOr<Suggestions> Suggest(const DesignerHistory& history, int count,
                                      std::mt19937_64& rng) override;

 private:
  // Every point of a finite space with at most this many points, in a fixed
  // order; nullopt for a larger or continuous space.
  std::optional<std::vector<ParameterAssignment>> EnumerateSpace() const;

  SearchSpace space_;
  // The number of points of a finite space, nullopt when a parameter is
  // DOUBLE or the product exceeds int64.
  std::optional<int64_t> space_size_;
};

}  // namespace vernier::suggest

#endif  // VERNIER_SUGGEST_DESIGNERS_RANDOM_SEARCH_DESIGNER_H_
