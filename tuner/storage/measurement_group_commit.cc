#include "tuner/storage/measurement_group_commit.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "text/absl_view.h"

namespace vernier::storage {

MeasurementGroupCommit::MeasurementGroupCommit(int max_batch, BatchWriter write)
    : max_batch_(max_batch),
      commits_(static_cast<size_t>(std::max(1, max_batch)), std::move(write)) {}

absl::StatusOr<v1::Trial> CombineAppendOutcomes(std::span<const v1::Measurement> measurements,
                                                std::vector<absl::StatusOr<v1::Trial>> outcomes) {
  for (absl::StatusOr<v1::Trial>& outcome : outcomes) {
    if (!outcome.ok()) return std::move(outcome).status();
  }
  if (outcomes.empty()) return absl::InternalError("no measurement was appended");
  // The trial as it was before the first, with the count after the last
  // one stored. An outcome of one not stored (its sequence number was) may
  // carry the count from before the earlier ones of the call: never lower.
  v1::Trial trial = *std::move(outcomes[0]);
  for (size_t i = 1; i < outcomes.size() && i < measurements.size(); ++i) {
    if (outcomes[i]->measurement_count() > trial.measurement_count()) {
      trial.set_measurement_count(outcomes[i]->measurement_count());
      *trial.mutable_latest_measurement() = measurements[i];
    }
  }
  return trial;
}

bool MeasurementGroupCommit::Takes(std::span<const v1::Measurement> measurements) const {
  return max_batch_ > 1 && !measurements.empty() &&
         std::all_of(
             measurements.begin(), measurements.end(),
             [](const v1::Measurement& measurement) { return measurement.sequence_number() > 0; });
}

MeasurementGroupCommit::Result MeasurementGroupCommit::Write(const MeasurementAppend& append) {
  return commits_.Write(append);
}

void MeasurementGroupCommit::SubmitOrAdd(Storage& store, std::string_view study_name,
                                         int64_t trial_id,
                                         std::span<const v1::Measurement> measurements,
                                         std::span<const v1::Trial::State> accepting_states,
                                         Storage::MeasurementDone done) {
  if (!Takes(measurements)) {
    // The trial id first: digits and a space keep any two keys apart.
    blocking_writes_.Run(
        absl::StrCat(trial_id, " ", text::AbslView(study_name)),
        [&store, study_name, trial_id, measurements, accepting_states, done = std::move(done)] {
          done(store.AddMeasurements(study_name, trial_id, measurements, accepting_states));
        });
    return;
  }
  // Lives until the batch is written: the callback owns it.
  auto queued = std::make_shared<const MeasurementAppend>(
      MeasurementAppend{study_name, trial_id, measurements, accepting_states});
  commits_.Submit(*queued,
                  [queued, done = std::move(done)](Result trial) { done(std::move(trial)); });
}

}  // namespace vernier::storage
