#ifndef VERNIER_TUNER_OBJECTIVE_CURVE_CACHE_H_
#define VERNIER_TUNER_OBJECTIVE_CURVE_CACHE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "suggest/early_stopping/learning_curve.h"
#include "tuner/storage/storage.h"
#include "vernier/v1/study.pb.h"

namespace vernier::tuner {

// The objective curves of a study's trials, as early stopping reads them on
// every report. Kept between calls and brought up to date from the store:
// a refresh is one listing of a digest of each of the study's trials as the
// store keeps them (Storage::ListTrialDigests), and only the trials whose
// digest changed since the last call are read (Storage::GetTrialBodies)
// and parsed. Their curves
// then follow their measurement counts: measurements are only ever appended,
// so a trial that grew by one needs only its latest measurement, and one
// that grew by more is read in full. A report thus parses the one or few
// trials that changed, not every trial of the study, and Read hands the
// kept curves over without copying them. Safe for concurrent use: the
// refreshes of one study take turns, its reads run side by side.
class ObjectiveCurveCache {
 public:
  explicit ObjectiveCurveCache(storage::Storage& storage) : storage_(storage) {}

  // Brings the study's curves up to date, then calls `read` with the curve
  // of the study's first metric for every trial that is running (ACTIVE,
  // STOPPING) or ended with a final measurement (SUCCEEDED, STOPPED_EARLY;
  // these are `completed`), ordered by trial id: the cache's own, valid
  // during the call. INTERNAL, naming the trial, when a stored trial does
  // not parse; the store's error when it cannot be read (and `read` is not
  // called).
  absl::Status Read(const v1::Study& study,
                    absl::FunctionRef<void(std::span<const suggest::LearningCurve>)> read);
  // Read's curves, copied.
  absl::StatusOr<std::vector<suggest::LearningCurve>> Curves(const v1::Study& study);

  // Drops what is kept for the study (it was deleted).
  void Forget(std::string_view study_name);

 private:
  // What was read of a trial.
  struct TrialState {
    // The digest of the trial as the store kept it when last read: an
    // unchanged digest, the same curve and state.
    std::string digest;
    int64_t measurement_count = 0;
    // Its place in StudyCurves::curves; -1 for a trial without a curve.
    int index = -1;
  };
  struct StudyCurves {
    absl::Mutex mutex;
    // The study the curves belong to: a study deleted and created again
    // under the same name starts afresh.
    std::string create_time ABSL_GUARDED_BY(mutex);
    std::map<int64_t, TrialState> trials ABSL_GUARDED_BY(mutex);
    // The curves Read hands over, ordered by trial id.
    std::vector<suggest::LearningCurve> curves ABSL_GUARDED_BY(mutex);
  };

  // Shared, so that a Forget while a report reads leaves the reader its
  // curves.
  std::shared_ptr<StudyCurves> Study(std::string_view study_name);
  // Brings the study's kept curves up to the listing `digests`.
  absl::Status Update(const v1::Study& study, const std::vector<storage::TrialDigest>& digests,
                      StudyCurves& cached) ABSL_EXCLUSIVE_LOCKS_REQUIRED(cached.mutex);
  // Brings the trial at `entry` up to its stored `body`, which changed since
  // it was last read.
  absl::Status Refresh(std::string_view study_name, std::string_view metric_id,
                       const storage::SerializedTrial& body,
                       std::map<int64_t, TrialState>::iterator entry, StudyCurves& cached)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(cached.mutex);
  // Gives the trial at `entry` a curve in `cached.curves` (empty), or takes
  // its curve away, keeping every later trial's index right.
  static void AddCurve(std::map<int64_t, TrialState>::iterator entry, StudyCurves& cached)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(cached.mutex);
  static void RemoveCurve(std::map<int64_t, TrialState>::iterator entry, StudyCurves& cached)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(cached.mutex);

  storage::Storage& storage_;
  absl::Mutex mutex_;
  std::map<std::string, std::shared_ptr<StudyCurves>, std::less<>> studies_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace vernier::tuner

#endif  // VERNIER_TUNER_OBJECTIVE_CURVE_CACHE_H_
