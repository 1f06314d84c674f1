#include "tuner/audit_log.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "spdlog/spdlog.h"

namespace vernier::tuner {
namespace {

// How long the writer waits after a failed append before it tries again.
constexpr absl::Duration kRetryDelay = absl::Seconds(1);

}  // namespace

AuditLog::AuditLog(storage::AuditLogStore& store, bool data_access, absl::Duration gather_time)
    : store_(store),
      data_access_(data_access),
      gather_time_(gather_time),
      writer_([this] { WriteLoop(); }) {}

AuditLog::~AuditLog() {
  {
    absl::MutexLock lock(&mutex_);
    stopping_ = true;
  }
  writer_.join();
}

void AuditLog::Record(v1::AuditEntry entry) {
  absl::MutexLock lock(&mutex_);
  queued_.push_back(std::move(entry));
  ++recorded_;
}

absl::Status AuditLog::Flush(absl::Duration timeout) {
  absl::MutexLock lock(&mutex_);
  const int64_t target = recorded_;
  const auto stored = [this, target]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
    return stored_ >= target;
  };
  ++flushing_;
  const bool done = mutex_.AwaitWithTimeout(absl::Condition(&stored), timeout);
  --flushing_;
  if (done) return absl::OkStatus();
  return absl::UnavailableError(absl::StrCat(
      "the audit log could not be written within ", absl::FormatDuration(timeout), ": ",
      last_error_.ok() ? "the store is slow" : std::string(last_error_.message())));
}

void AuditLog::WriteLoop() {
  while (true) {
    std::vector<v1::AuditEntry> batch;
    bool last_round = false;
    {
      absl::MutexLock lock(&mutex_);
      const auto work = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
        return stopping_ || !queued_.empty();
      };
      mutex_.Await(absl::Condition(&work));
      const auto gathered = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
        return stopping_ || flushing_ > 0 || queued_.size() >= kGatherEntries;
      };
      mutex_.AwaitWithTimeout(absl::Condition(&gathered), gather_time_);
      if (queued_.empty()) return;
      batch.swap(queued_);
      last_round = stopping_;
    }
    const absl::Status appended = store_.AppendAuditEntries(batch);
    absl::MutexLock lock(&mutex_);
    if (appended.ok()) {
      stored_ += static_cast<int64_t>(batch.size());
      last_error_ = absl::OkStatus();
      continue;
    }
    last_error_ = appended;
    if (last_round) {
      spdlog::error("the audit log lost {} entries at shutdown: {}", batch.size(),
                    appended.ToString());
      return;
    }
    spdlog::error("cannot append {} entries to the audit log (retrying): {}", batch.size(),
                  appended.ToString());
    // Back in front, in order, and tried again.
    batch.insert(batch.end(), std::make_move_iterator(queued_.begin()),
                 std::make_move_iterator(queued_.end()));
    queued_ = std::move(batch);
    const auto stopping = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) { return stopping_; };
    mutex_.AwaitWithTimeout(absl::Condition(&stopping), kRetryDelay);
  }
}

}  // namespace vernier::tuner
