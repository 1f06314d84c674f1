#include "tuner/storage/measurement_group_commit.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "tuner/storage/absl_string_view.h"

namespace vernier::storage {

MeasurementGroupCommit::MeasurementGroupCommit(int max_batch, BatchWriter write)
    : max_batch_(max_batch),
      commits_(static_cast<size_t>(std::max(1, max_batch)), std::move(write)) {}

bool MeasurementGroupCommit::Takes(std::span<const v1::Measurement> measurements) const {
  return max_batch_ > 1 && measurements.size() == 1 && measurements[0].sequence_number() > 0;
}

MeasurementGroupCommit::Result MeasurementGroupCommit::Write(const MeasurementAppend& append) {
  return commits_.Write(append);
}

void MeasurementGroupCommit::SubmitOrAdd(Storage& store, const MeasurementAppend& append,
                                         Storage::MeasurementDone done) {
  if (!Takes({append.measurement, 1})) {
    // The trial id first: digits and a space keep any two keys apart.
    blocking_writes_.Run(
        absl::StrCat(append.trial_id, " ", ToAbslView(append.study_name)),
        [&store, append, done = std::move(done)] {
          done(store.AddMeasurements(append.study_name, append.trial_id, {append.measurement, 1},
                                     append.accepting_states));
        });
    return;
  }
  // Lives until the batch is written: the callback owns it.
  auto queued = std::make_shared<const MeasurementAppend>(append);
  commits_.Submit(*queued,
                  [queued, done = std::move(done)](Result trial) { done(std::move(trial)); });
}

}  // namespace vernier::storage
