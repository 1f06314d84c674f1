#include "tuner/replica_environment.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace vernier::tuner {
namespace {

using ::testing::ElementsAre;
using ::testing::Pair;

TEST(ReplicaEnvironmentTest, TheRoleWinsOverTheJobWhichWinsOverTheServer) {
  v1::Job job;
  (*job.mutable_environment())["PATH"] = "/venv/bin:/usr/bin";
  (*job.mutable_environment())["LEVEL"] = "job";
  v1::ReplicaSpec spec;
  (*spec.mutable_env())["LEVEL"] = "role";
  const auto environment =
      ReplicaEnvironment({{"PATH", "/server/bin"}, {"HOME", "/home/dora"}}, job, spec);
  EXPECT_THAT(environment, ElementsAre(Pair("HOME", "/home/dora"), Pair("LEVEL", "role"),
                                       Pair("PATH", "/venv/bin:/usr/bin")));
}

TEST(ReplicaEnvironmentTest, TheServersPathOnlyWhenTheJobSendsNone) {
  const auto environment = ReplicaEnvironment({{"PATH", "/server/bin"}}, v1::Job(), {});
  EXPECT_THAT(environment, ElementsAre(Pair("PATH", "/server/bin")));
}

TEST(ReplicaEnvironmentTest, InheritsOnlyTheUsersLocaleTemporaryDirectoryAndPath) {
  const char* const server[] = {"HOME=/root",
                                "USER=root",
                                "LANG=C.UTF-8",
                                "LC_ALL=C",
                                "TMPDIR=/scratch",
                                "PATH=/usr/bin",
                                "VERNIER_TOKEN=secret",
                                "VERNIER_TEST_POSTGRES_URL=postgresql://x",
                                "SLURM_CONF=/etc/slurm.conf",
                                "PYTHONPATH=/server/python",
                                "AWS_SECRET_ACCESS_KEY=k",
                                "ASAN_OPTIONS=log_path=/tmp/a",
                                "NOEQUALS",
                                "=empty_name",
                                nullptr};
  EXPECT_THAT(InheritedVariables(server),
              ElementsAre(Pair("ASAN_OPTIONS", "log_path=/tmp/a"), Pair("HOME", "/root"),
                          Pair("LANG", "C.UTF-8"), Pair("LC_ALL", "C"), Pair("PATH", "/usr/bin"),
                          Pair("TMPDIR", "/scratch"), Pair("USER", "root")));
  EXPECT_TRUE(InheritedVariables(nullptr).empty());
}

}  // namespace
}  // namespace vernier::tuner
