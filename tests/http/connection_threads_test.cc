#include "http/connection_threads.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "absl/synchronization/notification.h"

namespace vernier::http {
namespace {

TEST(ConnectionThreadsTest, ATaskThatNeverEndsDoesNotHoldTheOthersUp) {
  ConnectionThreads threads(100);
  absl::Notification release;
  // 50 connections that stay open (streams, slow clients)...
  for (int i = 0; i < 50; ++i) threads.enqueue([&release] { release.WaitForNotification(); });
  // ...and one more is served at once.
  absl::Notification served;
  threads.enqueue([&served] { served.Notify(); });
  EXPECT_TRUE(served.WaitForNotificationWithTimeout(absl::Seconds(5)));
  EXPECT_GE(threads.running(), 50u);
  release.Notify();
  threads.shutdown();
  EXPECT_EQ(threads.running(), 0u);
}

TEST(ConnectionThreadsTest, BeyondTheLimitTasksWaitAndAllRun) {
  ConnectionThreads threads(2);
  std::atomic<int> done{0};
  absl::Notification release;
  threads.enqueue([&] {
    release.WaitForNotification();
    ++done;
  });
  threads.enqueue([&] {
    release.WaitForNotification();
    ++done;
  });
  for (int i = 0; i < 10; ++i) threads.enqueue([&] { ++done; });
  EXPECT_LE(threads.running(), 2u);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(done.load(), 0);
  release.Notify();
  threads.shutdown();
  EXPECT_EQ(done.load(), 12);
}

}  // namespace
}  // namespace vernier::http
