#include "tuner/storage/serial_by_key_executor.h"

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace vernier::storage {
namespace {

TEST(SerialByKeyExecutorTest, TasksOfOneKeyRunOneAtATimeInTheOrderTheyCame) {
  constexpr int kKeys = 3;
  constexpr int kTasksPerKey = 200;
  absl::Mutex mutex;
  std::map<std::string, std::vector<int>> order;
  std::map<std::string, int> running;
  int overlaps = 0;
  std::atomic<int> on_caller_thread = 0;
  const std::thread::id caller = std::this_thread::get_id();
  {
    SerialByKeyExecutor executor(4);
    for (int i = 0; i < kTasksPerKey; ++i) {
      for (int k = 0; k < kKeys; ++k) {
        const std::string key = "trial-" + std::to_string(k);
        executor.Run(key, [&, key, i] {
          if (std::this_thread::get_id() == caller) ++on_caller_thread;
          {
            absl::MutexLock lock(&mutex);
            if (++running[key] != 1) ++overlaps;
            order[key].push_back(i);
          }
          std::this_thread::yield();
          absl::MutexLock lock(&mutex);
          --running[key];
        });
      }
    }
  }  // runs what is queued before it ends
  EXPECT_EQ(overlaps, 0);
  EXPECT_EQ(on_caller_thread.load(), 0);
  ASSERT_EQ(order.size(), static_cast<size_t>(kKeys));
  for (const auto& [key, indexes] : order) {
    ASSERT_EQ(indexes.size(), static_cast<size_t>(kTasksPerKey)) << key;
    for (int i = 0; i < kTasksPerKey; ++i) EXPECT_EQ(indexes[i], i) << key;
  }
}

// However many tasks queue behind one that waits, they hold one thread: the
// other keys' tasks still run, and Run never waits.
TEST(SerialByKeyExecutorTest, AKeyWhoseTaskWaitsHoldsOnlyOneThread) {
  SerialByKeyExecutor executor(2);
  absl::Notification release;
  std::atomic<int> stuck_done = 0;
  for (int i = 0; i < 10; ++i) {
    executor.Run("stuck", [&] {
      release.WaitForNotification();
      ++stuck_done;
    });
  }
  std::vector<std::unique_ptr<absl::Notification>> others;
  for (int i = 0; i < 5; ++i) {
    others.push_back(std::make_unique<absl::Notification>());
    executor.Run("other-" + std::to_string(i), [done = others.back().get()] { done->Notify(); });
  }
  for (const auto& done : others) {
    EXPECT_TRUE(done->WaitForNotificationWithTimeout(absl::Seconds(30)));
  }
  // A task counts as pending until it returns, which may be just after it
  // notified: wait for the others to end before counting what is left.
  const absl::Time give_up = absl::Now() + absl::Seconds(30);
  while (executor.pending() > 10 && absl::Now() < give_up) std::this_thread::yield();
  EXPECT_EQ(stuck_done.load(), 0);
  EXPECT_EQ(executor.pending(), 10u);
  release.Notify();
  while (executor.pending() > 0) std::this_thread::yield();
  EXPECT_EQ(stuck_done.load(), 10);
}

TEST(SerialByKeyExecutorTest, FewerThanOneThreadMeansOne) {
  std::atomic<int> ran = 0;
  {
    SerialByKeyExecutor executor(0);
    for (int i = 0; i < 20; ++i) executor.Run(std::to_string(i % 3), [&] { ++ran; });
  }
  EXPECT_EQ(ran.load(), 20);
}

}  // namespace
}  // namespace vernier::storage
