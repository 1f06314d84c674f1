#ifndef VERNIER_SUGGEST_DESIGNERS_MODEL_FALLBACK_H_
#define VERNIER_SUGGEST_DESIGNERS_MODEL_FALLBACK_H_

#include <random>
#include "absl/strings/string_view.h"

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "suggest/designer.h"
#include "suggest/designers/quasi_random_designer.h"

namespace vernier::suggest {

// How a model-based designer (GpBanditDesigner, MultiObjectiveGpDesigner)
// answers Suggest: INVALID_ARGUMENT for a negative count, nothing for 0, the
// initial design's points until `model_ready`, then `from_model`'s; when the
// model fails, the initial design's points all the same, with
// fallback_reason "the MODEL failed (WHY); quasi-random points instead".
absl::StatusOr<Suggestions> SuggestFromModelOrInitialDesign(
    const DesignerHistory& history, int count, std::mt19937_64& rng, bool model_ready,
    absl::string_view model, QuasiRandomDesigner& initial_design,
    absl::FunctionRef<absl::StatusOr<Suggestions>()> from_model);

}  // namespace vernier::suggest

#endif  // VERNIER_SUGGEST_DESIGNERS_MODEL_FALLBACK_H_
