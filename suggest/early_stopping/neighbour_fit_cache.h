#ifndef VERNIER_SUGGEST_EARLY_STOPPING_NEIGHBOUR_FIT_CACHE_H_
#define VERNIER_SUGGEST_EARLY_STOPPING_NEIGHBOUR_FIT_CACHE_H_

#include <cstdint>
#include <list>
#include <memory>
#include <span>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/synchronization/mutex.h"
#include "suggest/early_stopping/learning_curve.h"
#include "suggest/early_stopping/neighbour_curve_model.h"
#include "vernier/v1/study.pb.h"

namespace vernier::suggest {

// NeighbourCurveModel's fits of finished curves, kept between decisions. A
// study's finished curves change only when one of its trials finishes, so
// the reports between two finishes are all judged by the same fit, which
// costs a pass over every finished curve's every report (and a median of
// each one's step-to-step changes). A fit is found again by its goal, its
// horizon and, for each finished curve in order, its trial id, its number of
// reports and a hash of every report's step and value: curves that differ in
// any report make another fit. The latest fits are kept, at most `capacity`
// of them (one per study deciding at once is enough) holding at most
// `max_reports` finished reports together (each costs 32 bytes in a fit); a
// fit of more is made for its decision alone. Nothing here changes a
// decision: a fit found is the one Fit would have made. Safe for concurrent
// use.
class NeighbourFitCache {
 public:
  static constexpr int kDefaultCapacity = 16;
  // 64 MiB of fits.
  static constexpr int64_t kDefaultMaxReports = int64_t{2} << 20;

  explicit NeighbourFitCache(int capacity = kDefaultCapacity,
                             int64_t max_reports = kDefaultMaxReports)
      : capacity_(capacity < 1 ? 1 : capacity), max_reports_(max_reports) {}

  // The fit of `finished` at `horizon` under `goal`: the kept one, else
  // `fit()`'s, which is then kept in place of the least recently used.
  std::shared_ptr<const NeighbourCurveModel::Fitted> Get(
      v1::MetricSpec::Goal goal, std::span<const LearningCurve* const> finished, int64_t horizon,
      absl::FunctionRef<std::shared_ptr<const NeighbourCurveModel::Fitted>()> fit);

  // How many Get calls found their fit kept, and how many did not.
  int64_t hits() const;
  int64_t misses() const;

 private:
  struct Entry {
    std::vector<uint64_t> key;
    std::shared_ptr<const NeighbourCurveModel::Fitted> fitted;
    // The finished curves' reports it holds.
    int64_t reports = 0;
  };

  static std::vector<uint64_t> Key(v1::MetricSpec::Goal goal,
                                   std::span<const LearningCurve* const> finished, int64_t horizon);

  const int capacity_;
  const int64_t max_reports_;
  mutable absl::Mutex mutex_;
  // Most recently used first.
  std::list<Entry> entries_ ABSL_GUARDED_BY(mutex_);
  int64_t reports_ ABSL_GUARDED_BY(mutex_) = 0;
  int64_t hits_ ABSL_GUARDED_BY(mutex_) = 0;
  int64_t misses_ ABSL_GUARDED_BY(mutex_) = 0;
};

}  // namespace vernier::suggest

#endif  // VERNIER_SUGGEST_EARLY_STOPPING_NEIGHBOUR_FIT_CACHE_H_
