#include "tuner/storage/group_commit.h"

#include <atomic>
#include <span>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace vernier::storage {
namespace {

using ::testing::Each;
using ::testing::ElementsAre;
using ::testing::Le;

TEST(GroupCommitTest, ALoneWriteIsABatchOfOne) {
  std::vector<size_t> sizes;
  GroupCommit<int, int> commits(8, [&](std::span<const int* const> batch) {
    sizes.push_back(batch.size());
    std::vector<int> results;
    for (const int* request : batch) results.push_back(*request * 2);
    return results;
  });
  EXPECT_EQ(commits.Write(21), 42);
  EXPECT_EQ(commits.Write(5), 10);
  EXPECT_THAT(sizes, ElementsAre(1, 1));
  EXPECT_EQ(commits.batches_written(), 2u);
}

// While one batch is being written, the writes that come in wait and all go
// out together in the next batch, each caller with its own result.
TEST(GroupCommitTest, WritesThatArriveDuringABatchGoOutTogetherInTheNext) {
  constexpr int kWaiting = 6;
  absl::Notification first_batch_started;
  absl::Notification release_first_batch;
  absl::Mutex mutex;
  std::vector<std::vector<int>> batches;
  GroupCommit<int, int> commits(100, [&](std::span<const int* const> batch) {
    std::vector<int> requests;
    for (const int* request : batch) requests.push_back(*request);
    {
      absl::MutexLock lock(&mutex);
      batches.push_back(requests);
    }
    if (!first_batch_started.HasBeenNotified()) {
      first_batch_started.Notify();
      release_first_batch.WaitForNotification();
    }
    std::vector<int> results;
    for (int request : requests) results.push_back(request + 1000);
    return results;
  });

  std::thread first([&] { EXPECT_EQ(commits.Write(0), 1000); });
  first_batch_started.WaitForNotification();
  std::vector<std::thread> waiting;
  std::atomic<int> started = 0;
  for (int i = 1; i <= kWaiting; ++i) {
    waiting.emplace_back([&, i] {
      ++started;
      EXPECT_EQ(commits.Write(i), i + 1000);
    });
  }
  // Every waiting write is queued before the first batch ends: a write that
  // finds a batch running never runs one of its own until that batch ends.
  while (started.load() < kWaiting) std::this_thread::yield();
  absl::SleepFor(absl::Milliseconds(50));
  release_first_batch.Notify();
  first.join();
  for (std::thread& thread : waiting) thread.join();

  absl::MutexLock lock(&mutex);
  ASSERT_EQ(batches.size(), 2u);
  EXPECT_THAT(batches[0], ElementsAre(0));
  EXPECT_THAT(batches[1], ::testing::UnorderedElementsAre(1, 2, 3, 4, 5, 6));
}

// Many writers at once: every write gets its own result exactly once,
// batches never overlap and never exceed the limit.
TEST(GroupCommitTest, ConcurrentWritersEachGetTheirOwnResult) {
  constexpr int kThreads = 16;
  constexpr int kWritesPerThread = 300;
  constexpr size_t kMaxBatch = 5;
  std::atomic<int> writing = 0;
  std::atomic<int> overlaps = 0;
  std::atomic<int> requests_written = 0;
  absl::Mutex mutex;
  std::vector<size_t> sizes;
  GroupCommit<int, int> commits(kMaxBatch, [&](std::span<const int* const> batch) {
    if (writing.fetch_add(1) != 0) ++overlaps;
    std::vector<int> results;
    for (const int* request : batch) results.push_back(-*request);
    requests_written += static_cast<int>(batch.size());
    {
      absl::MutexLock lock(&mutex);
      sizes.push_back(batch.size());
    }
    writing.fetch_sub(1);
    return results;
  });
  std::atomic<int> wrong = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kWritesPerThread; ++i) {
        const int request = t * kWritesPerThread + i + 1;
        if (commits.Write(request) != -request) ++wrong;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(overlaps.load(), 0);
  EXPECT_EQ(requests_written.load(), kThreads * kWritesPerThread);
  absl::MutexLock lock(&mutex);
  EXPECT_THAT(sizes, Each(Le(kMaxBatch)));
  EXPECT_EQ(commits.batches_written(), sizes.size());
}

// Submit hands the request over and returns while its batch is still being
// written; `done` runs with the result once the batch is written, on the
// group commit's thread.
TEST(GroupCommitTest, SubmitReturnsAtOnceAndDoneGetsTheResultAfterTheBatch) {
  absl::Notification batch_started;
  absl::Notification release_batch;
  GroupCommit<int, int> commits(8, [&](std::span<const int* const> batch) {
    batch_started.Notify();
    release_batch.WaitForNotification();
    std::vector<int> results;
    for (const int* request : batch) results.push_back(*request * 3);
    return results;
  });
  const int request = 7;
  std::atomic<int> result = 0;
  std::thread::id done_thread;
  absl::Notification done;
  commits.Submit(request, [&](int outcome) {
    done_thread = std::this_thread::get_id();
    result = outcome;
    done.Notify();
  });
  batch_started.WaitForNotification();
  EXPECT_FALSE(done.HasBeenNotified());
  EXPECT_EQ(result.load(), 0);
  release_batch.Notify();
  done.WaitForNotification();
  EXPECT_EQ(result.load(), 21);
  EXPECT_NE(done_thread, std::this_thread::get_id());
}

// What is queued when the group commit goes is still written and answered.
TEST(GroupCommitTest, DestructionWritesWhatIsStillQueued) {
  constexpr int kQueued = 5;
  absl::Notification first_batch_started;
  absl::Notification release_first_batch;
  std::vector<int> requests(kQueued + 1);
  std::vector<int> results(kQueued + 1, 0);
  {
    GroupCommit<int, int> commits(100, [&](std::span<const int* const> batch) {
      if (!first_batch_started.HasBeenNotified()) {
        first_batch_started.Notify();
        release_first_batch.WaitForNotification();
      }
      std::vector<int> written;
      for (const int* request : batch) written.push_back(*request + 1);
      return written;
    });
    for (int i = 0; i <= kQueued; ++i) {
      requests[i] = i * 10;
      commits.Submit(requests[i], [&results, i](int outcome) { results[i] = outcome; });
      if (i == 0) first_batch_started.WaitForNotification();
    }
    release_first_batch.Notify();
  }
  EXPECT_THAT(results, ElementsAre(1, 11, 21, 31, 41, 51));
}

}  // namespace
}  // namespace vernier::storage
