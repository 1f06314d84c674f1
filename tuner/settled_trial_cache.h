#ifndef VERNIER_TUNER_SETTLED_TRIAL_CACHE_H_
#define VERNIER_TUNER_SETTLED_TRIAL_CACHE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "suggest/designer.h"
#include "tuner/storage/storage.h"
#include "vernier/v1/study.pb.h"

namespace vernier::tuner {

// A study's trials for its suggestions, without reading all of them from the
// store each time. A trial that ended (SUCCEEDED, STOPPED_EARLY, INFEASIBLE,
// FAILED) never changes again, so once every trial up to some id has ended,
// those "settled" trials stay in memory (as the designers see them) and each
// read fetches only the
// trials after them (ListTrials from a page token): a handful while trials
// finish roughly in order, however long the study. This holds across
// servers sharing a store, since what is settled is final everywhere.
//
// Reads of one study must not overlap (StudyManager holds the study's lock);
// reads of different studies may.
class SettledTrialCache {
 public:
  struct Snapshot {
    // Trials 1..settled_count have all ended.
    int64_t settled_count = 0;
    // The designers' view of the settled trials, kept across reads so that
    // each trial is converted once, not on every suggestion. The caller
    // converts the trials in `unconverted` into it and clears that; it may
    // add other trials for one designer call and must leave it holding only
    // the settled ones again. Both valid until the study's next Read or
    // Forget.
    suggest::DesignerHistory* settled_history = nullptr;
    // Settled trials not yet in settled_history, in id order, without
    // latest_measurement and status_reason.
    std::vector<v1::Trial>* unconverted = nullptr;
    // Every later trial, read from the store just now, in id order, without
    // measurements.
    std::vector<v1::Trial> recent;

    int64_t total() const { return settled_count + static_cast<int64_t>(recent.size()); }
  };

  explicit SettledTrialCache(storage::Storage& storage);

  // `study` as just read from the store: a study deleted and created again
  // under the same name (another create time or seed) starts over.
  absl::StatusOr<Snapshot> Read(const v1::Study& study);
  void Forget(std::string_view study_name);

 private:
  struct Entry {
    google::protobuf::Timestamp create_time;
    uint64_t seed = 0;
    int64_t settled_count = 0;
    int64_t last_settled_id = 0;
    suggest::DesignerHistory settled_history;
    std::vector<v1::Trial> unconverted;
  };

  Entry& EntryFor(const v1::Study& study);

  storage::Storage& storage_;
  absl::Mutex mutex_;
  // Entries are never erased while a read of their study is running.
  std::map<std::string, std::unique_ptr<Entry>, std::less<>> entries_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace vernier::tuner

#endif  // VERNIER_TUNER_SETTLED_TRIAL_CACHE_H_
