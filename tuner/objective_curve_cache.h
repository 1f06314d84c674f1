#ifndef VERNIER_TUNER_OBJECTIVE_CURVE_CACHE_H_
#define VERNIER_TUNER_OBJECTIVE_CURVE_CACHE_H_

#include <atomic>
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
// a refresh is one read of the trials written since the last refresh
// (Storage::ListTrialChanges, from the horizon the last one gave), and of
// those only the trials whose stored bytes changed are parsed. Their curves
// then follow their measurement counts: measurements are only ever appended,
// so a trial that grew by one needs only its latest measurement, and one
// that grew by more is read in full (many such, as on a study's first read,
// a page of trials at a time). A report thus parses the one or few
// trials that changed, not every trial of the study, and Read hands the
// kept curves over without copying them. Safe for concurrent use: the
// refreshes of one study take turns (a call that waited for another's
// refresh, begun after it came, reads what that one brought), its reads run
// side by side.
class ObjectiveCurveCache {
 public:
  // A trial's state as the cache last read it.
  struct TrialStatus {
    v1::Trial::State state = v1::Trial::STATE_UNSPECIFIED;
    // Why it stops, for a STOPPING trial (empty otherwise).
    std::string status_reason;
  };

  explicit ObjectiveCurveCache(storage::Storage& storage) : storage_(storage) {}

  // Brings the study's curves up to date, then calls `read` with trial
  // `trial_id`'s status (nullptr when the study has no such trial) and the
  // curve of the study's first metric for every trial that is running
  // (ACTIVE, STOPPING) or ended with a final measurement (SUCCEEDED,
  // STOPPED_EARLY; these are `completed`), ordered by trial id: the cache's
  // own, valid during the call. INTERNAL, naming the trial, when a stored
  // trial does not parse; the store's error when it cannot be read (and
  // `read` is not called).
  absl::Status Read(
      const v1::Study& study, int64_t trial_id,
      absl::FunctionRef<void(const TrialStatus*, std::span<const suggest::LearningCurve>)> read);
  // Read's curves, copied.
  absl::StatusOr<std::vector<suggest::LearningCurve>> Curves(const v1::Study& study);

  // Drops what is kept for the study (it was deleted).
  void Forget(std::string_view study_name);

 private:
  // What was read of a trial.
  struct TrialState {
    // The trial as the store kept it when last read: the same bytes, the
    // same curve and status.
    std::string bytes;
    TrialStatus status;
    int64_t measurement_count = 0;
    // Its place in StudyCurves::curves; -1 for a trial without a curve.
    int index = -1;
  };
  struct StudyCurves {
    // Held through a refresh (the store's read and its application), so
    // that refreshes take turns.
    absl::Mutex refresh;
    // Refreshes begun so far, and the number of the last one applied.
    std::atomic<int64_t> begun{0};
    int64_t applied ABSL_GUARDED_BY(refresh) = 0;
    // The store's horizon of the last refresh applied.
    std::string horizon ABSL_GUARDED_BY(refresh);
    // What the reads read; written only under `refresh` too.
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
  // Reads what changed since the last refresh and applies it.
  absl::Status Update(const v1::Study& study, StudyCurves& cached)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(cached.refresh);
  // Brings the trial at `entry` up to its stored `body`, which changed since
  // it was last read, but for a trial that grew by more than one
  // measurement: its id goes to `read_in_full`, for ReadInFull.
  absl::Status Refresh(std::string_view study_name, std::string_view metric_id,
                       const storage::SerializedTrial& body,
                       std::map<int64_t, TrialState>::iterator entry, StudyCurves& cached,
                       std::vector<int64_t>& read_in_full)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(cached.mutex);
  // The curves of the trials `ids` (ordered) from all their measurements:
  // each read alone when they are few, else the study's trials a page at a
  // time (a study's first decision on this server reads every curve).
  absl::Status ReadInFull(std::string_view study_name, std::string_view metric_id,
                          std::span<const int64_t> ids, StudyCurves& cached)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(cached.mutex);
  // Gives the trial at `entry` a curve in `cached.curves` (empty), or takes
  // its curve away, keeping every later trial's index right.
  static void AddCurve(std::map<int64_t, TrialState>::iterator entry, StudyCurves& cached)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(cached.mutex);
  static void RemoveCurve(std::map<int64_t, TrialState>::iterator entry, StudyCurves& cached)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(cached.mutex);

  // ReadInFull reads up to this many trials one by one, more by pages.
  static constexpr size_t kReadAloneAtMost = 8;
  static constexpr int kTrialsPerPage = 256;

  storage::Storage& storage_;
  absl::Mutex mutex_;
  std::map<std::string, std::shared_ptr<StudyCurves>, std::less<>> studies_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace vernier::tuner

#endif  // VERNIER_TUNER_OBJECTIVE_CURVE_CACHE_H_
