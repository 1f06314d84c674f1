#ifndef VERNIER_SUGGEST_DESIGNERS_QUASI_RANDOM_DESIGNER_H_
#define VERNIER_SUGGEST_DESIGNERS_QUASI_RANDOM_DESIGNER_H_

#include <cstdint>
#include <random>

#include "absl/status/statusor.h"
#include "suggest/designer.h"
#include "suggest/designers/random_search_designer.h"
#include "suggest/scrambled_halton_sequence.h"
#include "suggest/search_space.h"

namespace vernier::suggest {

// QUASI_RANDOM_SEARCH: the points of a scrambled Halton sequence in the unit
// cube, decoded through the search space. The scramble comes from the
// study's seed and the sequence continues at the number of trials the study
// already has, so the trials of a study, suggested one at a time or in
// batches, across restarts too, are the first points of one low-discrepancy
// sequence: they cover the space evenly, without random search's clumps and
// holes. A point already in the history or the batch is skipped; when the
// sequence keeps hitting used points (a nearly exhausted finite space) the
// rest comes from random search, which enumerates what is left.
class QuasiRandomDesigner : public Designer {
 public:
  QuasiRandomDesigner(SearchSpace space, uint64_t seed);

  // INVALID_ARGUMENT when count is negative. The rng is only used once the
  // sequence keeps hitting used points.
  absl::StatusOr<Suggestions> Suggest(const DesignerHistory& history, int count,
                                      std::mt19937_64& rng) override;

 private:
  SearchSpace space_;
  ScrambledHaltonSequence sequence_;
  RandomSearchDesigner random_;
};

}  // namespace vernier::suggest

#endif  // VERNIER_SUGGEST_DESIGNERS_QUASI_RANDOM_DESIGNER_H_
