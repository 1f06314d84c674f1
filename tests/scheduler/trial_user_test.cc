#include "scheduler/trial_user.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/subprocess.h"

namespace vernier::scheduler {
namespace {

using ::testing::AllOf;
using ::testing::Contains;
using ::testing::HasSubstr;

TEST(TrialUserTest, OnlyRootMayRunTrainersAsAnotherUser) {
  absl::StatusOr<TrialUser> user = TrialUser::Lookup("nobody", 1000);
  EXPECT_EQ(user.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(user.status().message(),
              HasSubstr("--trial-user nobody needs the server to run as root (it runs as uid "
                        "1000)"));
}

TEST(TrialUserTest, AnUnknownUserIsNamed) {
  absl::StatusOr<TrialUser> user = TrialUser::Lookup("no-such-vernier-user", 0);
  EXPECT_EQ(user.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(user.status().message(),
              HasSubstr("--trial-user no-such-vernier-user: no such user on this machine"));
}

TEST(TrialUserTest, RootIsNoTrialUser) {
  absl::StatusOr<TrialUser> user = TrialUser::Lookup("root", 0);
  EXPECT_EQ(user.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(user.status().message(), HasSubstr("--trial-user root is root (uid 0)"));
}

TEST(TrialUserTest, AUserComesWithItsIdsGroupsAndHome) {
  absl::StatusOr<TrialUser> user = TrialUser::Lookup("nobody", 0);
  if (absl::IsNotFound(user.status())) GTEST_SKIP() << "this machine has no user nobody";
  ASSERT_TRUE(user.ok()) << user.status();
  EXPECT_EQ(user->name, "nobody");
  EXPECT_NE(user->uid, 0u);
  EXPECT_THAT(user->groups, Contains(user->gid));
  EXPECT_FALSE(user->home.empty());
}

TEST(TrialUserTest, ItMustBeAbleToEnterEveryFolderOnTheWay) {
  const TrialUser user{
      .name = "trainer", .uid = 54321, .gid = 54321, .groups = {54321}, .home = "/nonexistent"};
  testing::TempDir dir;
  const std::string jobs = dir.path() + "/data/jobs";
  std::filesystem::create_directories(jobs);
  ASSERT_EQ(chmod(dir.path().c_str(), 0711), 0);
  ASSERT_EQ(chmod((dir.path() + "/data").c_str(), 0711), 0);
  ASSERT_EQ(chmod(jobs.c_str(), 0711), 0);
  EXPECT_TRUE(user.CheckCanEnter(jobs).ok()) << user.CheckCanEnter(jobs);

  ASSERT_EQ(chmod((dir.path() + "/data").c_str(), 0700), 0);
  const absl::Status closed = user.CheckCanEnter(jobs);
  EXPECT_EQ(closed.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(closed.message(), AllOf(HasSubstr("--trial-user trainer cannot enter " + dir.path() +
                                                "/data (mode 0700"),
                                      HasSubstr("chmod o+x " + dir.path() + "/data")));

  // Its own folder, by the owner's bits.
  if (geteuid() != 0) return;
  ASSERT_EQ(chown((dir.path() + "/data").c_str(), 54321, 0), 0);
  EXPECT_TRUE(user.CheckCanEnter(jobs).ok()) << user.CheckCanEnter(jobs);
}

TEST(TrialUserTest, ItMustBeAbleToRunTheAgent) {
  const TrialUser user{
      .name = "trainer", .uid = 54321, .gid = 54321, .groups = {54321}, .home = "/nonexistent"};
  testing::TempDir dir;
  ASSERT_EQ(chmod(dir.path().c_str(), 0755), 0);
  const std::string agent = dir.path() + "/vernier-agent";
  std::ofstream(agent) << "#!/bin/sh\n";
  ASSERT_EQ(chmod(agent.c_str(), 0755), 0);
  EXPECT_TRUE(user.CheckCanRun(agent).ok()) << user.CheckCanRun(agent);
  ASSERT_EQ(chmod(agent.c_str(), 0750), 0);
  EXPECT_THAT(user.CheckCanRun(agent).message(),
              HasSubstr("--trial-user trainer may not execute " + agent + " (mode 0750"));
}

}  // namespace
}  // namespace vernier::scheduler
