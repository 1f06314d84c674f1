#include "trainer-agent/replica_lock.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "tests/support/subprocess.h"

namespace vernier::agent {
namespace {

using ::testing::HasSubstr;

TEST(ReplicaLockTest, OneHolderAtATimeAndTheWaiterLearnsWho) {
  vernier::testing::TempDir dir;
  const std::string path = dir.path() + "/.vernier/master-0/agent.lock";
  std::optional<ReplicaLock> held;
  {
    absl::StatusOr<ReplicaLock> first = ReplicaLock::TryAcquire(path);
    ASSERT_TRUE(first.ok()) << first.status();
    held.emplace(*std::move(first));
  }
  const absl::StatusOr<ReplicaLock> second = ReplicaLock::TryAcquire(path);
  EXPECT_EQ(second.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(second.status().message(),
            absl::StrCat("another vernier-agent (pid ", getpid(), ") holds ", path));
  held.reset();
  EXPECT_TRUE(ReplicaLock::TryAcquire(path).ok()) << "released with its holder";
}

TEST(ReplicaLockTest, AnUnusableDirectoryIsAnError) {
  const absl::StatusOr<ReplicaLock> lock =
      ReplicaLock::TryAcquire("/dev/null/trial/.vernier/master-0/agent.lock");
  EXPECT_EQ(lock.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(lock.status().message(), HasSubstr("cannot create the directory of /dev/null/trial"));
}

}  // namespace
}  // namespace vernier::agent
