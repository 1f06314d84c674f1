#include "tuner/storage/serial_by_key_executor.h"

#include <algorithm>
#include <utility>

namespace vernier::storage {

SerialByKeyExecutor::SerialByKeyExecutor(int threads) {
  const int count = std::max(1, threads);
  threads_.reserve(count);
  for (int i = 0; i < count; ++i) threads_.emplace_back([this] { Work(); });
}

SerialByKeyExecutor::~SerialByKeyExecutor() {
  {
    absl::MutexLock lock(&mutex_);
    stopping_ = true;
  }
  for (std::thread& thread : threads_) thread.join();
}

void SerialByKeyExecutor::Run(const std::string& key, std::function<void()> task) {
  absl::MutexLock lock(&mutex_);
  auto [it, first] = waiting_.try_emplace(key);
  it->second.push_back(std::move(task));
  ++pending_;
  // Otherwise the key is already ready, or a task of it runs and the thread
  // running it makes it ready again.
  if (first) ready_.push_back(key);
}

size_t SerialByKeyExecutor::pending() const {
  absl::MutexLock lock(&mutex_);
  return pending_;
}

bool SerialByKeyExecutor::HasWork() const {
  // A thread that stops leaves only once nothing runs or waits: a task that
  // ends may make its key ready again.
  return !ready_.empty() || (stopping_ && waiting_.empty());
}

void SerialByKeyExecutor::Work() {
  for (;;) {
    std::string key;
    std::function<void()> task;
    {
      absl::MutexLock lock(&mutex_, absl::Condition(this, &SerialByKeyExecutor::HasWork));
      if (ready_.empty()) return;  // stopping, and nothing left
      key = std::move(ready_.front());
      ready_.pop_front();
      std::deque<std::function<void()>>& tasks = waiting_.at(key);
      task = std::move(tasks.front());
      tasks.pop_front();
    }
    task();
    absl::MutexLock lock(&mutex_);
    --pending_;
    auto it = waiting_.find(key);
    if (it->second.empty()) {
      waiting_.erase(it);
    } else {
      ready_.push_back(std::move(key));
    }
  }
}

}  // namespace vernier::storage
