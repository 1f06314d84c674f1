#include "tuner/storage/ticket_lock.h"

#include <mutex>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace vernier::storage {
namespace {

using ::testing::ElementsAre;

// Threads that queue while the lock is held get it in the order they asked,
// even when the holder asks again at once.
TEST(TicketLockTest, WaitersGetTheLockInTheOrderTheyAsked) {
  TicketLock lock;
  absl::Mutex order_mutex;
  std::vector<int> order;
  lock.lock();
  std::vector<std::thread> waiters;
  for (int i = 0; i < 4; ++i) {
    waiters.emplace_back([&, i] {
      std::unique_lock turn(lock);
      absl::MutexLock order_lock(&order_mutex);
      order.push_back(i);
    });
    // Each waiter has its ticket before the next one starts.
    while (lock.holders_and_waiters() < i + 2) absl::SleepFor(absl::Milliseconds(1));
  }
  lock.unlock();
  // The first holder asks again behind everyone already waiting.
  {
    std::unique_lock again(lock);
    absl::MutexLock order_lock(&order_mutex);
    order.push_back(99);
  }
  for (std::thread& waiter : waiters) waiter.join();
  EXPECT_THAT(order, ElementsAre(0, 1, 2, 3, 99));
  EXPECT_EQ(lock.holders_and_waiters(), 0);
}

TEST(TicketLockTest, ExcludesEveryOtherHolder) {
  TicketLock lock;
  int inside = 0;
  int overlaps = 0;
  int64_t total = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 2000; ++i) {
        std::unique_lock turn(lock);
        if (++inside != 1) ++overlaps;
        ++total;
        --inside;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(overlaps, 0);
  EXPECT_EQ(total, 8 * 2000);
}

}  // namespace
}  // namespace vernier::storage
