#include "tuner/config/closest_match.h"

#include <algorithm>
#include <vector>

#include "absl/strings/ascii.h"

namespace vernier::config {

size_t EditDistance(absl::string_view a, absl::string_view b) {
  // Three rows of the dynamic-programming table: a swap looks two rows back.
  std::vector<size_t> before_previous(b.size() + 1), previous(b.size() + 1), current(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const bool same = absl::ascii_tolower(a[i - 1]) == absl::ascii_tolower(b[j - 1]);
      current[j] =
          std::min({previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (same ? 0 : 1)});
      if (i > 1 && j > 1 && absl::ascii_tolower(a[i - 1]) == absl::ascii_tolower(b[j - 2]) &&
          absl::ascii_tolower(a[i - 2]) == absl::ascii_tolower(b[j - 1])) {
        current[j] = std::min(current[j], before_previous[j - 2] + 1);
      }
    }
    std::swap(before_previous, previous);
    std::swap(previous, current);
  }
  return previous[b.size()];
}

std::optional<absl::string_view> ClosestMatch(absl::string_view word,
                                              std::span<const absl::string_view> candidates) {
  const size_t threshold = std::max<size_t>(1, word.size() / 3);
  std::optional<absl::string_view> best;
  size_t best_distance = threshold + 1;
  for (absl::string_view candidate : candidates) {
    const size_t distance = EditDistance(word, candidate);
    if (distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  }
  return best;
}

}  // namespace vernier::config
