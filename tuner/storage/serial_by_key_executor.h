#ifndef VERNIER_TUNER_STORAGE_SERIAL_BY_KEY_EXECUTOR_H_
#define VERNIER_TUNER_STORAGE_SERIAL_BY_KEY_EXECUTOR_H_

#include <cstddef>
#include <deque>
#include <functional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace vernier::storage {

// Runs blocking work handed over by callers that must not block (gRPC
// callback handlers) on a fixed set of threads of its own. Tasks with the
// same key run one at a time, in the order they came, so work that waits
// (on one trial's row lock, say) holds one thread however much of it
// queues, and the other threads go on with other keys.
class SerialByKeyExecutor {
 public:
  explicit SerialByKeyExecutor(int threads);
  SerialByKeyExecutor(const SerialByKeyExecutor&) = delete;
  SerialByKeyExecutor& operator=(const SerialByKeyExecutor&) = delete;
  // Runs what is still queued, then stops the threads.
  ~SerialByKeyExecutor();

  // Queues `task` and returns at once; it runs after every task queued
  // before it with the same key has ended.
  void Run(const std::string& key, std::function<void()> task);

  // Tasks queued or running, for tests.
  size_t pending() const;

 private:
  bool HasWork() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  void Work();

  mutable absl::Mutex mutex_;
  // A key is here while one of its tasks runs or waits; its tasks not yet
  // started, oldest first.
  std::unordered_map<std::string, std::deque<std::function<void()>>> waiting_
      ABSL_GUARDED_BY(mutex_);
  // Keys with a task waiting and none running, in the order they became so.
  std::deque<std::string> ready_ ABSL_GUARDED_BY(mutex_);
  size_t pending_ ABSL_GUARDED_BY(mutex_) = 0;
  bool stopping_ ABSL_GUARDED_BY(mutex_) = false;
  // Last: they start once the fields above are ready.
  std::vector<std::thread> threads_;
};

}  // namespace vernier::storage

#endif  // VERNIER_TUNER_STORAGE_SERIAL_BY_KEY_EXECUTOR_H_
