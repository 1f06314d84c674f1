#include "tuner/cli/trial_count_format.h"

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace vernier::cli {

std::string FormatTrialCounts(const v1::TrialCounts& counts) {
  std::string text =
      absl::StrCat(counts.requested(), " requested, ", counts.active(), " active, ",
                   counts.succeeded(), " succeeded, ", counts.failed(), " failed, ",
                   counts.infeasible(), " infeasible, ", counts.stopped_early(), " stopped early");
  if (counts.cancelled() > 0) absl::StrAppend(&text, ", ", counts.cancelled(), " cancelled");
  return text;
}

std::string FormatOutcome(const v1::TrainingOutput& output) {
  const v1::TrialCounts& counts = output.trial_counts();
  std::vector<std::string> parts;
  const auto add = [&parts](int64_t n, std::string_view what) {
    if (n > 0) parts.push_back(absl::StrCat(n, " ", std::string(what)));
  };
  add(counts.succeeded(), "succeeded");
  add(counts.stopped_early(), "stopped early");
  add(counts.infeasible(), "infeasible");
  add(counts.failed(), "failed");
  add(counts.cancelled(), "cancelled");
  add(int64_t{counts.active()} + counts.requested(), "running");
  if (parts.empty()) return "-";
  std::string text = absl::StrJoin(parts, ", ");
  if (output.resumed_trial_count() > 0) {
    absl::StrAppend(&text, " (", output.resumed_trial_count(), " resumed)");
  }
  return text;
}

}  // namespace vernier::cli
