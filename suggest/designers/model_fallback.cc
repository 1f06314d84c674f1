#include "suggest/designers/model_fallback.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace vernier::suggest {

absl::StatusOr<Suggestions> SuggestFromModelOrInitialDesign(
    const DesignerHistory& history, int count, std::mt19937_64& rng, bool model_ready,
    absl::string_view model, QuasiRandomDesigner& initial_design,
    absl::FunctionRef<absl::StatusOr<Suggestions>()> from_model) {
  if (count < 0) {
    return absl::InvalidArgumentError(absl::StrCat("count must not be negative, got ", count));
  }
  if (count == 0) return Suggestions();
  if (!model_ready) return initial_design.Suggest(history, count, rng);
  absl::StatusOr<Suggestions> suggestions = from_model();
  if (suggestions.ok()) return suggestions;
  absl::StatusOr<Suggestions> fallback = initial_design.Suggest(history, count, rng);
  if (!fallback.ok()) return fallback.status();
  fallback->fallback_reason = absl::StrCat("the ", model, " failed (",
                                           suggestions.status().message(),
                                           "); quasi-random points instead");
  return fallback;
}

}  // namespace vernier::suggest
