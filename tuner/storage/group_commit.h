#ifndef VERNIER_TUNER_STORAGE_GROUP_COMMIT_H_
#define VERNIER_TUNER_STORAGE_GROUP_COMMIT_H_

#include <cstddef>
#include <deque>
#include <functional>
#include <optional>
#include <span>
#include <thread>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"

namespace vernier::storage {

// Group commit: requests that arrive while a batch is being written queue
// and go out together in the next one, so N concurrent writers cost one
// statement and one commit instead of N. One thread of its own writes the
// batches, one at a time, so a request waits for at most the batch running
// when it came plus its own. Each request gets its own result, and only after
// its batch was written, so an acknowledgement still means it is stored.
//
// Submit does not block: a gRPC callback handler hands its request over and
// answers from `done`, so no server thread sleeps through a commit (the
// wake-ups that cost more CPU than the commit itself). Write is the blocking
// form.
template <typename Request, typename Result>
class GroupCommit {
 public:
  // Writes a batch; returns one result per request, in the batch's order.
  // Runs on the group commit's thread, one batch at a time.
  using BatchWriter = std::function<std::vector<Result>(std::span<const Request* const>)>;
  // Receives a request's result, on the group commit's thread.
  using Done = std::function<void(Result)>;

  GroupCommit(size_t max_batch, BatchWriter write)
      : max_batch_(max_batch), write_(std::move(write)), writer_([this] { WriteBatches(); }) {}
  GroupCommit(const GroupCommit&) = delete;
  GroupCommit& operator=(const GroupCommit&) = delete;
  // Writes what is still queued, then stops the thread.
  ~GroupCommit() {
    {
      absl::MutexLock lock(&mutex_);
      stopping_ = true;
    }
    writer_.join();
  }

  // Queues `request` for the next batch and returns at once; `done` gets its
  // result once the batch is written. `request` must stay valid until then.
  void Submit(const Request& request, Done done) {
    absl::MutexLock lock(&mutex_);
    queue_.push_back(Queued{&request, std::move(done)});
  }

  // Writes `request` in a batch with whatever else is queued and returns its
  // result.
  Result Write(const Request& request) {
    std::optional<Result> result;
    absl::Notification written;
    Submit(request, [&](Result outcome) {
      result.emplace(std::move(outcome));
      written.Notify();
    });
    written.WaitForNotification();
    return *std::move(result);
  }

  // Batches written so far, for tests and benchmarks.
  size_t batches_written() const {
    absl::MutexLock lock(&mutex_);
    return batches_written_;
  }

 private:
  struct Queued {
    const Request* request;
    Done done;
  };

  bool HasWork() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
    return !queue_.empty() || stopping_;
  }

  void WriteBatches() {
    std::vector<Queued> batch;
    std::vector<const Request*> requests;
    for (;;) {
      {
        absl::MutexLock lock(&mutex_, absl::Condition(this, &GroupCommit::HasWork));
        if (queue_.empty()) return;  // stopping, and nothing left to write
        batch.clear();
        while (!queue_.empty() && batch.size() < max_batch_) {
          batch.push_back(std::move(queue_.front()));
          queue_.pop_front();
        }
      }
      requests.clear();
      for (const Queued& queued : batch) requests.push_back(queued.request);
      std::vector<Result> results = write_(requests);
      {
        absl::MutexLock lock(&mutex_);
        ++batches_written_;
      }
      for (size_t i = 0; i < batch.size(); ++i) batch[i].done(std::move(results[i]));
    }
  }

  const size_t max_batch_;
  const BatchWriter write_;
  mutable absl::Mutex mutex_;
  std::deque<Queued> queue_ ABSL_GUARDED_BY(mutex_);
  bool stopping_ ABSL_GUARDED_BY(mutex_) = false;
  size_t batches_written_ ABSL_GUARDED_BY(mutex_) = 0;
  // Last: starts once the fields above are ready.
  std::thread writer_;
};

}  // namespace vernier::storage

#endif  // VERNIER_TUNER_STORAGE_GROUP_COMMIT_H_
