#include "http/connection_threads.h"

#include <utility>

namespace vernier::http {

ConnectionThreads::ConnectionThreads(size_t max_threads) : max_threads_(max_threads) {}

ConnectionThreads::~ConnectionThreads() { shutdown(); }

void ConnectionThreads::enqueue(std::function<void()> task) {
  JoinEnded();
  absl::MutexLock lock(&mutex_);
  if (threads_.size() >= max_threads_) {
    waiting_.push_back(std::move(task));
    return;
  }
  // The thread waits for the lock before it looks itself up.
  std::thread thread([this, task = std::move(task)]() mutable { Work(std::move(task)); });
  const std::thread::id id = thread.get_id();
  threads_.emplace(id, std::move(thread));
}

void ConnectionThreads::Work(std::function<void()> task) {
  for (;;) {
    task();
    absl::MutexLock lock(&mutex_);
    if (waiting_.empty()) {
      // Joined by the next enqueue or by shutdown.
      auto self = threads_.find(std::this_thread::get_id());
      ended_.push_back(std::move(self->second));
      threads_.erase(self);
      return;
    }
    task = std::move(waiting_.front());
    waiting_.pop_front();
  }
}

void ConnectionThreads::JoinEnded() {
  std::vector<std::thread> ended;
  {
    absl::MutexLock lock(&mutex_);
    ended.swap(ended_);
  }
  for (std::thread& thread : ended) thread.join();
}

void ConnectionThreads::shutdown() {
  {
    absl::MutexLock lock(&mutex_);
    if (shut_down_) return;
    shut_down_ = true;
    mutex_.Await(absl::Condition(
        +[](std::map<std::thread::id, std::thread>* threads) { return threads->empty(); },
        &threads_));
  }
  JoinEnded();
}

size_t ConnectionThreads::running() const {
  absl::MutexLock lock(&mutex_);
  return threads_.size();
}

}  // namespace vernier::http
