#ifndef VERNIER_TUNER_STORAGE_MEASUREMENT_GROUP_COMMIT_H_
#define VERNIER_TUNER_STORAGE_MEASUREMENT_GROUP_COMMIT_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "tuner/storage/group_commit.h"
#include "tuner/storage/storage.h"
#include "vernier/v1/study.pb.h"

namespace vernier::storage {

// One measurement of an AddMeasurements call, queued for group commit. It
// points into the caller's arguments, which stay valid until it is answered.
struct MeasurementAppend {
  std::string_view study_name;
  int64_t trial_id = 0;
  const v1::Measurement* measurement = nullptr;
  std::span<const v1::Trial::State> accepting_states;
};

// Group commit (see GroupCommit) of what agents report: one measurement with
// a sequence number at a time, so that a batch written twice after a lost
// connection stores nothing twice. A store gives it the function that writes
// a batch in one transaction, and sends it the calls it Takes.
class MeasurementGroupCommit {
 public:
  using Result = absl::StatusOr<v1::Trial>;
  using BatchWriter = std::function<std::vector<Result>(std::span<const MeasurementAppend* const>)>;

  // Batches of up to `max_batch`; 1 or less: Takes nothing, and no batch is
  // ever written.
  MeasurementGroupCommit(int max_batch, BatchWriter write);

  // Whether an AddMeasurements call of these measurements goes through here.
  bool Takes(std::span<const v1::Measurement> measurements) const;
  // Blocks until the append's batch is written.
  Result Write(const MeasurementAppend& append);
  // Storage::AddMeasurementAsync for the store that owns this: an append it
  // Takes is queued and this returns at once, `done` running on the group
  // commit's thread once the batch is written (what `append` points to must
  // stay valid until then; `append` itself is copied); any other goes
  // through `store.AddMeasurements` now, on this thread.
  void SubmitOrAdd(Storage& store, const MeasurementAppend& append, Storage::MeasurementDone done);

  size_t batches_written() const { return commits_.batches_written(); }

 private:
  const int max_batch_;
  GroupCommit<MeasurementAppend, Result> commits_;
};

}  // namespace vernier::storage

#endif  // VERNIER_TUNER_STORAGE_MEASUREMENT_GROUP_COMMIT_H_
