#ifndef VERNIER_TUNER_STORAGE_GROUP_COMMIT_H_
#define VERNIER_TUNER_STORAGE_GROUP_COMMIT_H_

#include <cstddef>
#include <deque>
#include <functional>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace vernier::storage {

// Group commit: requests that arrive while a batch is being written wait and
// go out together in the next one, so N concurrent writers cost one
// statement and one commit instead of N. No thread of its own: the first
// caller to find no batch running runs one for everything queued (itself
// included) and then wakes the next waiting caller to lead, so a caller waits
// for at most the batch running when it came plus its own. Each caller gets
// its own result, and only after its batch was written, so an acknowledgement
// still means the request is stored.
template <typename Request, typename Result>
class GroupCommit {
 public:
  // Writes a batch; returns one result per request, in the batch's order.
  // Runs without the queue's lock held, one batch at a time.
  using BatchWriter = std::function<std::vector<Result>(std::span<const Request* const>)>;

  GroupCommit(size_t max_batch, BatchWriter write)
      : max_batch_(max_batch), write_(std::move(write)) {}
  GroupCommit(const GroupCommit&) = delete;
  GroupCommit& operator=(const GroupCommit&) = delete;

  // Writes `request` in a batch with whatever else is queued and returns its
  // result. `request` must stay valid until this returns.
  Result Write(const Request& request) {
    Waiter self(&request);
    absl::MutexLock lock(&mutex_);
    queue_.push_back(&self);
    for (;;) {
      while (!self.result.has_value() && writing_) self.woken.Wait(&mutex_);
      if (self.result.has_value()) return *std::move(self.result);
      WriteOneBatch();
      // Whoever is at the head of the queue now leads the next batch.
      if (!queue_.empty() && queue_.front() != &self) queue_.front()->woken.Signal();
    }
  }

  // Batches written so far, for tests and benchmarks.
  size_t batches_written() const {
    absl::MutexLock lock(&mutex_);
    return batches_written_;
  }

 private:
  struct Waiter {
    explicit Waiter(const Request* request) : request(request) {}
    const Request* request;
    std::optional<Result> result;
    absl::CondVar woken;
  };

  void WriteOneBatch() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
    writing_ = true;
    std::vector<Waiter*> batch;
    std::vector<const Request*> requests;
    while (!queue_.empty() && batch.size() < max_batch_) {
      batch.push_back(queue_.front());
      requests.push_back(queue_.front()->request);
      queue_.pop_front();
    }
    mutex_.Unlock();
    std::vector<Result> results = write_(requests);
    mutex_.Lock();
    writing_ = false;
    ++batches_written_;
    for (size_t i = 0; i < batch.size(); ++i) {
      batch[i]->result.emplace(std::move(results[i]));
      batch[i]->woken.Signal();
    }
  }

  const size_t max_batch_;
  const BatchWriter write_;
  mutable absl::Mutex mutex_;
  std::deque<Waiter*> queue_ ABSL_GUARDED_BY(mutex_);
  bool writing_ ABSL_GUARDED_BY(mutex_) = false;
  size_t batches_written_ ABSL_GUARDED_BY(mutex_) = 0;
};

}  // namespace vernier::storage

#endif  // VERNIER_TUNER_STORAGE_GROUP_COMMIT_H_
