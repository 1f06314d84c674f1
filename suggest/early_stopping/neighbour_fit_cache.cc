#include "suggest/early_stopping/neighbour_fit_cache.h"

#include <bit>
#include <utility>

namespace vernier::suggest {
namespace {

// One multiply a word (as FxHash): cheap next to the fit it saves, and with
// the trial ids and counts beside it, two curves that differ in a report
// do not meet by chance.
uint64_t Mix(uint64_t hash, uint64_t word) {
  return (std::rotl(hash, 5) ^ word) * 0x9e3779b97f4a7c15ull;
}

}  // namespace

std::vector<uint64_t> NeighbourFitCache::Key(v1::MetricSpec::Goal goal,
                                             std::span<const LearningCurve* const> finished,
                                             int64_t horizon) {
  std::vector<uint64_t> key;
  key.reserve(3 + 3 * finished.size());
  key.push_back(static_cast<uint64_t>(goal));
  key.push_back(static_cast<uint64_t>(horizon));
  key.push_back(finished.size());
  for (const LearningCurve* curve : finished) {
    uint64_t hash = 0;
    for (const CurvePoint& point : curve->points) {
      // A report's step and value as one word: an odd multiple of the step
      // spreads it over the value's bits.
      hash = Mix(hash, std::bit_cast<uint64_t>(point.value) ^
                           (static_cast<uint64_t>(point.step) * 0xff51afd7ed558ccdull));
    }
    key.push_back(static_cast<uint64_t>(curve->trial_id));
    key.push_back(curve->points.size());
    key.push_back(hash);
  }
  return key;
}

std::shared_ptr<const NeighbourCurveModel::Fitted> NeighbourFitCache::Get(
    v1::MetricSpec::Goal goal, std::span<const LearningCurve* const> finished, int64_t horizon,
    absl::FunctionRef<std::shared_ptr<const NeighbourCurveModel::Fitted>()> fit) {
  std::vector<uint64_t> key = Key(goal, finished, horizon);
  {
    absl::MutexLock lock(&mutex_);
    for (auto it = entries_.begin(); it != entries_.end(); ++it) {
      if (it->key != key) continue;
      entries_.splice(entries_.begin(), entries_, it);
      ++hits_;
      return entries_.front().fitted;
    }
    ++misses_;
  }
  // Fitted outside the lock: other studies' decisions do not wait for it.
  std::shared_ptr<const NeighbourCurveModel::Fitted> fitted = fit();
  int64_t reports = 0;
  for (const LearningCurve* curve : finished) reports += static_cast<int64_t>(curve->points.size());
  if (reports > max_reports_) return fitted;
  absl::MutexLock lock(&mutex_);
  entries_.push_front({std::move(key), fitted, reports});
  reports_ += reports;
  while (static_cast<int>(entries_.size()) > capacity_ || reports_ > max_reports_) {
    reports_ -= entries_.back().reports;
    entries_.pop_back();
  }
  return fitted;
}

int64_t NeighbourFitCache::hits() const {
  absl::MutexLock lock(&mutex_);
  return hits_;
}

int64_t NeighbourFitCache::misses() const {
  absl::MutexLock lock(&mutex_);
  return misses_;
}

}  // namespace vernier::suggest
