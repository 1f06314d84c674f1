#ifndef VERNIER_TUNER_AUDIT_LOG_H_
#define VERNIER_TUNER_AUDIT_LOG_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "tuner/storage/audit_log_store.h"
#include "vernier/v1/audit_service.pb.h"

namespace vernier::tuner {

// Writes the audit log (docs/security.md) off the calls' path: Record
// queues an entry and returns; one writer thread appends what is queued in
// one transaction at a time (the store chains and serialises the rows), so
// a burst of calls costs one append, not one each. Once an entry is queued
// the writer gathers for `gather_time` more (less when kGatherEntries are
// queued, a Flush waits, or the log stops) before it appends. Flush waits
// for every entry recorded before it; the destructor flushes what is left.
class AuditLog {
 public:
  // How long the writer gathers entries after the first by default: at a
  // steady rate of calls this makes appends several times fewer, and
  // delays none by more than a few milliseconds.
  static constexpr absl::Duration kGatherTime = absl::Milliseconds(5);
  // How many queued entries end the gathering early.
  static constexpr size_t kGatherEntries = 256;

  // `data_access`: also record reads and measurement writes
  // (`vernier serve --audit-data-access`).
  AuditLog(storage::AuditLogStore& store, bool data_access,
           absl::Duration gather_time = kGatherTime);
  ~AuditLog();
  AuditLog(const AuditLog&) = delete;
  AuditLog& operator=(const AuditLog&) = delete;

  bool records_data_access() const { return data_access_; }
  void Record(v1::AuditEntry entry);
  // OK once every entry recorded before the call is stored; UNAVAILABLE
  // with the store's error when that takes longer than `timeout`.
  absl::Status Flush(absl::Duration timeout = absl::Seconds(30));

 private:
  void WriteLoop();

  storage::AuditLogStore& store_;
  const bool data_access_;
  const absl::Duration gather_time_;
  absl::Mutex mutex_;
  std::vector<v1::AuditEntry> queued_ ABSL_GUARDED_BY(mutex_);
  int64_t recorded_ ABSL_GUARDED_BY(mutex_) = 0;
  int64_t stored_ ABSL_GUARDED_BY(mutex_) = 0;
  absl::Status last_error_ ABSL_GUARDED_BY(mutex_);
  bool stopping_ ABSL_GUARDED_BY(mutex_) = false;
  // Flush calls waiting, which end the writer's gathering.
  int flushing_ ABSL_GUARDED_BY(mutex_) = 0;
  std::thread writer_;
};

}  // namespace vernier::tuner

#endif  // VERNIER_TUNER_AUDIT_LOG_H_
