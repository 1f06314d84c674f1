// AuditLog's writer: what it gathers into one append, and what ends the
// gathering (a full batch, a Flush, the log stopping), against a store that
// only records the appends it is asked for.
#include "tuner/audit_log.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace vernier::tuner {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// The sizes of the appends asked for, and the users of their entries; can
// fail the next appends.
class RecordingAuditStore : public storage::AuditLogStore {
 public:
  absl::Status AppendAuditEntries(std::span<const v1::AuditEntry> entries) override {
    absl::MutexLock lock(&mutex_);
    if (failures_left_ > 0) {
      --failures_left_;
      return absl::UnavailableError("the store is down");
    }
    sizes_.push_back(static_cast<int>(entries.size()));
    for (const v1::AuditEntry& entry : entries) users_.push_back(entry.user());
    return absl::OkStatus();
  }
  absl::StatusOr<std::vector<v1::AuditEntry>> ListAuditEntries(
      const storage::AuditQuery&) override {
    return std::vector<v1::AuditEntry>{};
  }
  absl::StatusOr<std::vector<storage::StoredAuditRow>> ReadAuditChain() override {
    return std::vector<storage::StoredAuditRow>{};
  }

  std::vector<int> sizes() {
    absl::MutexLock lock(&mutex_);
    return sizes_;
  }
  std::vector<std::string> users() {
    absl::MutexLock lock(&mutex_);
    return users_;
  }
  void FailNext(int appends) {
    absl::MutexLock lock(&mutex_);
    failures_left_ = appends;
  }
  // Waits (up to a minute) until `count` entries are stored.
  bool AwaitStored(size_t count) {
    absl::MutexLock lock(&mutex_);
    const auto stored = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
      return users_.size() >= count;
    };
    return mutex_.AwaitWithTimeout(absl::Condition(&stored), absl::Minutes(1));
  }

 private:
  absl::Mutex mutex_;
  std::vector<int> sizes_ ABSL_GUARDED_BY(mutex_);
  std::vector<std::string> users_ ABSL_GUARDED_BY(mutex_);
  int failures_left_ ABSL_GUARDED_BY(mutex_) = 0;
};

v1::AuditEntry Entry(const std::string& user) {
  v1::AuditEntry entry;
  entry.set_user(user);
  return entry;
}

// A gathering far longer than any test: only what ends it early can.
constexpr absl::Duration kForever = absl::Hours(1);

TEST(AuditLogTest, EntriesRecordedWhileGatheringGoInOneAppendWhenAFlushEndsIt) {
  RecordingAuditStore store;
  AuditLog log(store, /*data_access=*/false, kForever);
  log.Record(Entry("a"));
  log.Record(Entry("b"));
  log.Record(Entry("c"));
  ASSERT_TRUE(log.Flush(absl::Minutes(1)).ok());
  EXPECT_THAT(store.sizes(), ElementsAre(3));
  EXPECT_THAT(store.users(), ElementsAre("a", "b", "c"));
}

TEST(AuditLogTest, AFullBatchEndsTheGatheringWithoutAFlush) {
  RecordingAuditStore store;
  AuditLog log(store, /*data_access=*/false, kForever);
  for (size_t i = 0; i < AuditLog::kGatherEntries; ++i) log.Record(Entry(absl::StrCat(i)));
  ASSERT_TRUE(store.AwaitStored(AuditLog::kGatherEntries));
  EXPECT_THAT(store.sizes(), ElementsAre(static_cast<int>(AuditLog::kGatherEntries)));
}

TEST(AuditLogTest, StoppingEndsTheGatheringAndStoresWhatIsQueued) {
  RecordingAuditStore store;
  {
    AuditLog log(store, /*data_access=*/false, kForever);
    log.Record(Entry("a"));
    log.Record(Entry("b"));
  }
  EXPECT_THAT(store.users(), ElementsAre("a", "b"));
}

TEST(AuditLogTest, AFlushThatOutlastsItsTimeoutNamesTheStoresErrorAndTheEntriesAreKept) {
  RecordingAuditStore store;
  // Down for every append within the flush below (the writer tries again
  // each second), so the flush times out after at least one has failed.
  store.FailNext(1000);
  AuditLog log(store, /*data_access=*/false, kForever);
  log.Record(Entry("a"));
  const absl::Status flushed = log.Flush(absl::Seconds(3));
  EXPECT_EQ(flushed.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(flushed.message(), HasSubstr("the store is down"));
  store.FailNext(0);
  ASSERT_TRUE(log.Flush(absl::Minutes(1)).ok());
  EXPECT_THAT(store.users(), ElementsAre("a"));
}

}  // namespace
}  // namespace vernier::tuner
