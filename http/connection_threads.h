#ifndef VERNIER_HTTP_CONNECTION_THREADS_H_
#define VERNIER_HTTP_CONNECTION_THREADS_H_

#include <httplib.h>

#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace vernier::http {

// The HTTP listener's threads (cpp-httplib's task queue): a thread per open
// connection, started when the connection is accepted and ended when it
// closes, up to `max_threads` (kMaxConnectionThreads); connections beyond
// that wait, in order, for one to close. A pool of a fixed size let a few
// slow or long connections (half-sent requests, event streams) hold every
// thread, so that no other request was answered.
class ConnectionThreads : public httplib::TaskQueue {
 public:
  explicit ConnectionThreads(size_t max_threads);
  ~ConnectionThreads() override;
  ConnectionThreads(const ConnectionThreads&) = delete;
  ConnectionThreads& operator=(const ConnectionThreads&) = delete;

  // Runs `task` (one connection) on a thread of its own, or queues it when
  // `max_threads` are running.
  void enqueue(std::function<void()> task) override;
  // Runs what is queued, then waits for every thread to end.
  void shutdown() override;

  // The threads running now.
  size_t running() const;

 private:
  // A thread's life: `task`, then queued ones until none is left.
  void Work(std::function<void()> task);
  // Joins the threads that have ended.
  void JoinEnded() ABSL_LOCKS_EXCLUDED(mutex_);

  const size_t max_threads_;
  mutable absl::Mutex mutex_;
  std::deque<std::function<void()>> waiting_ ABSL_GUARDED_BY(mutex_);
  std::map<std::thread::id, std::thread> threads_ ABSL_GUARDED_BY(mutex_);
  std::vector<std::thread> ended_ ABSL_GUARDED_BY(mutex_);
  bool shut_down_ ABSL_GUARDED_BY(mutex_) = false;
};

}  // namespace vernier::http

#endif  // VERNIER_HTTP_CONNECTION_THREADS_H_
