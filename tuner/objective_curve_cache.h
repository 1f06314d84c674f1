#ifndef VERNIER_TUNER_OBJECTIVE_CURVE_CACHE_H_
#define VERNIER_TUNER_OBJECTIVE_CURVE_CACHE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "suggest/early_stopping/learning_curve.h"
#include "tuner/storage/storage.h"
#include "vernier/v1/study.pb.h"

namespace vernier::tuner {

// The objective curves of a study's trials, as early stopping reads them on
// every report. Kept between calls and brought up to date from the store by
// measurement count: measurements are only ever appended, so a trial whose
// count is unchanged has the same curve, and one that grew by one needs only
// its latest measurement. A refresh is thus one listing of the study's
// trials without measurements, plus a full read of the trials that grew by
// more than one since the last call. Safe for concurrent use.
class ObjectiveCurveCache {
 public:
  explicit ObjectiveCurveCache(storage::Storage& storage) : storage_(storage) {}

  // The curve of the study's first metric for every trial that is running
  // (ACTIVE, STOPPING) or ended with a final measurement (SUCCEEDED,
  // STOPPED_EARLY; these are `completed`), ordered by trial id.
  absl::StatusOr<std::vector<suggest::LearningCurve>> Curves(const v1::Study& study);

  // Drops what is kept for the study (it was deleted).
  void Forget(std::string_view study_name);

 private:
  struct TrialCurve {
    int64_t measurement_count = 0;
    std::vector<suggest::CurvePoint> points;
  };
  struct StudyCurves {
    absl::Mutex mutex;
    // The study the curves belong to: a study deleted and created again
    // under the same name starts afresh.
    std::string create_time ABSL_GUARDED_BY(mutex);
    std::map<int64_t, TrialCurve> trials ABSL_GUARDED_BY(mutex);
  };

  StudyCurves& Study(std::string_view study_name);

  storage::Storage& storage_;
  absl::Mutex mutex_;
  std::map<std::string, std::unique_ptr<StudyCurves>, std::less<>> studies_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace vernier::tuner

#endif  // VERNIER_TUNER_OBJECTIVE_CURVE_CACHE_H_
