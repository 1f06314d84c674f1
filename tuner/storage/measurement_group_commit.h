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
#include "tuner/storage/serial_by_key_executor.h"
#include "tuner/storage/storage.h"
#include "vernier/v1/study.pb.h"

namespace vernier::storage {

// The measurements of an AddMeasurements call, queued for group commit,
// all stored or none. It points into the caller's arguments, which stay
// valid until it is answered.
struct MeasurementAppend {
  std::string_view study_name;
  int64_t trial_id = 0;
  std::span<const v1::Measurement> measurements;
  std::span<const v1::Trial::State> accepting_states;
};

// The result of appending `measurements` in order, from the outcome of
// each (as one append of a single measurement returns it): the first error,
// or the trial as the first outcome has it with the highest count and the
// latest measurement that raised it.
absl::StatusOr<v1::Trial> CombineAppendOutcomes(std::span<const v1::Measurement> measurements,
                                                std::vector<absl::StatusOr<v1::Trial>> outcomes);

// Group commit (see GroupCommit) of what agents and batching clients
// report: measurements that all carry a sequence number, so that a batch
// written twice after a lost connection stores nothing twice. A store gives
// it the function that writes a batch in one transaction, and sends it the
// calls it Takes.
class MeasurementGroupCommit {
 public:
  using Result = absl::StatusOr<v1::Trial>;
  using BatchWriter = std::function<std::vector<Result>(std::span<const MeasurementAppend* const>)>;

  // Batches of up to `max_batch`; 1 or less: Takes nothing, and no batch is
  // ever written.
  MeasurementGroupCommit(int max_batch, BatchWriter write);

  // Whether an AddMeasurements call of these measurements goes through
  // here: at least one, every one with a sequence number.
  bool Takes(std::span<const v1::Measurement> measurements) const;
  // Blocks until the append's batch is written.
  Result Write(const MeasurementAppend& append);
  // Storage::AddMeasurementsAsync for the store that owns this; returns at
  // once. Measurements it Takes are queued for the next batch, and `done`
  // runs on the group commit's thread once the batch is written. Any others
  // (several, or one without a sequence number) go through
  // `store.AddMeasurements` on a thread of kBlockingWriters, one call at a
  // time per trial: such a write may wait (on the trial's row lock, or for
  // a connection), and waiting there holds up neither the caller (a gRPC
  // callback thread, of which there are few) nor other trials' reports.
  // The arguments must stay valid until `done` has run.
  void SubmitOrAdd(Storage& store, std::string_view study_name, int64_t trial_id,
                   std::span<const v1::Measurement> measurements,
                   std::span<const v1::Trial::State> accepting_states,
                   Storage::MeasurementDone done);

  // Threads for the appends group commit does not take: measurements
  // without a sequence number (the Python client's reports) and batches
  // come from people at notebooks and from clients that already send
  // fewer calls, not from every replica one at a time, so a few suffice.
  static constexpr int kBlockingWriters = 4;

  size_t batches_written() const { return commits_.batches_written(); }

 private:
  const int max_batch_;
  GroupCommit<MeasurementAppend, Result> commits_;
  SerialByKeyExecutor blocking_writes_{kBlockingWriters};
};

}  // namespace vernier::storage

#endif  // VERNIER_TUNER_STORAGE_MEASUREMENT_GROUP_COMMIT_H_
