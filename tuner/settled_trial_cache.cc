#include "tuner/settled_trial_cache.h"

#include <utility>

#include "google/protobuf/util/message_differencer.h"
#include "tuner/storage/page_token.h"
#include "tuner/storage/trial_states.h"

namespace vernier::tuner {

SettledTrialCache::SettledTrialCache(storage::Storage& storage) : storage_(storage) {}

SettledTrialCache::Entry& SettledTrialCache::EntryFor(const v1::Study& study) {
  absl::MutexLock lock(&mutex_);
  std::unique_ptr<Entry>& entry = entries_[study.name()];
  if (entry == nullptr ||
      !google::protobuf::util::MessageDifferencer::Equals(entry->create_time,
                                                          study.create_time()) ||
      entry->seed != study.spec().seed()) {
    entry = std::make_unique<Entry>();
    entry->create_time = study.create_time();
    entry->seed = study.spec().seed();
  }
  return *entry;
}

absl::StatusOr<SettledTrialCache::Snapshot> SettledTrialCache::Read(const v1::Study& study) {
  Entry& entry = EntryFor(study);
  storage::TrialQuery after_settled;
  if (entry.settled_count > 0) {
    after_settled.page_token = storage::EncodeTrialPageToken(entry.last_settled_id);
  }
  absl::StatusOr<storage::Page<v1::Trial>> page = storage_.ListTrials(study.name(), after_settled);
  if (!page.ok()) return page.status();
  std::vector<v1::Trial>& recent = page->items;
  // Move the ended trials at the front over to the settled ones.
  size_t newly_settled = 0;
  while (newly_settled < recent.size() && HasEnded(recent[newly_settled].state())) {
    v1::Trial& trial = recent[newly_settled++];
    trial.clear_latest_measurement();
    trial.clear_status_reason();
    entry.last_settled_id = trial.id();
    ++entry.settled_count;
    entry.unconverted.push_back(std::move(trial));
  }
  recent.erase(recent.begin(), recent.begin() + static_cast<std::ptrdiff_t>(newly_settled));
  return Snapshot{.settled_count = entry.settled_count,
                  .settled_history = &entry.settled_history,
                  .unconverted = &entry.unconverted,
                  .recent = std::move(recent)};
}

void SettledTrialCache::Forget(std::string_view study_name) {
  absl::MutexLock lock(&mutex_);
  if (auto it = entries_.find(study_name); it != entries_.end()) entries_.erase(it);
}

}  // namespace vernier::tuner
