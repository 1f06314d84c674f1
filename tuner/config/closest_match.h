#ifndef VERNIER_TUNER_CONFIG_CLOSEST_MATCH_H_
#define VERNIER_TUNER_CONFIG_CLOSEST_MATCH_H_

#include <cstddef>
#include <optional>
#include <span>

#include "absl/strings/string_view.h"

namespace vernier::config {

// Optimal-string-alignment distance, ignoring ASCII case: insertions,
// deletions, substitutions and swaps of two adjacent characters cost 1 each,
// so the typo "maxTrails" is 1 away from "maxTrials".
size_t EditDistance(absl::string_view a, absl::string_view b);

// The candidate nearest to `word` if it is close enough to be the word the
// user meant (at most a third of the word's length away, and at least 1),
// the first of equals in candidate order; nullopt otherwise.
std::optional<absl::string_view> ClosestMatch(absl::string_view word,
                                              std::span<const absl::string_view> candidates);

}  // namespace vernier::config

#endif  // VERNIER_TUNER_CONFIG_CLOSEST_MATCH_H_
