#include "tuner/log_follower.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/support/subprocess.h"

namespace vernier::tuner {
namespace {

std::vector<std::string> Texts(const std::vector<v1::LogLine>& lines) {
  std::vector<std::string> texts;
  for (const v1::LogLine& line : lines) texts.push_back(line.text());
  return texts;
}

TEST(LogFollowerTest, SendsWholeLinesAsFilesGrowAndThePartialLastOneOnDrain) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/master-0.log";
  LogFollower follower;
  follower.AddSource(3, "master", 0, path);
  EXPECT_TRUE(follower.Poll().empty());  // not there yet

  std::ofstream(path, std::ios::app) << "one\ntw";
  std::vector<v1::LogLine> first = follower.Poll();
  ASSERT_EQ(Texts(first), std::vector<std::string>{"one"});
  EXPECT_EQ(first[0].trial_id(), 3);
  EXPECT_EQ(first[0].role(), "master");

  std::ofstream(path, std::ios::app) << "o\nthree";
  EXPECT_EQ(Texts(follower.Poll()), std::vector<std::string>{"two"});
  follower.AddSource(3, "master", 0, path);  // again: no duplicate lines
  EXPECT_EQ(Texts(follower.Drain()), std::vector<std::string>{"three"});
  EXPECT_TRUE(follower.Drain().empty());
}

TEST(LogFollowerTest, ASymlinkAtALogPathIsNotFollowed) {
  testing::TempDir dir;
  const std::string secret = dir.path() + "/secret.txt";
  std::ofstream(secret) << "password=hunter2\n";
  const std::string path = dir.path() + "/master-0.log";
  std::filesystem::create_symlink(secret, path);
  LogFollower follower;
  follower.AddSource(3, "master", 0, path);
  EXPECT_TRUE(follower.Poll().empty());
  EXPECT_TRUE(follower.Drain().empty());
}

TEST(LogFollowerTest, LinesAreValidUtf8WhateverTheFileHolds) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/master-0.log";
  LogFollower follower;
  follower.AddSource(3, "master", 0, path);
  std::ofstream(path, std::ios::app) << "\xe8\xae\xad ok\nbad \xff\xfe byte\ncut \xe8\xae";
  EXPECT_EQ(Texts(follower.Poll()),
            (std::vector<std::string>{"\xe8\xae\xad ok", "bad \xef\xbf\xbd\xef\xbf\xbd byte"}));
  EXPECT_EQ(Texts(follower.Drain()), std::vector<std::string>{"cut \xef\xbf\xbd"});
}

TEST(LogFollowerTest, ARetryTagsLaterLinesWithItsAttempt) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/worker-0.log";
  LogFollower follower;
  follower.AddSource(3, "worker", 0, path, 0);
  std::ofstream(path, std::ios::app) << "first\ncut off";
  ASSERT_EQ(Texts(follower.Poll()), std::vector<std::string>{"first"});

  follower.AddSource(3, "worker", 0, path, 1);  // the retry appends to the same file
  std::ofstream(path, std::ios::app) << "again\n";
  const std::vector<v1::LogLine> lines = follower.Poll();
  ASSERT_EQ(Texts(lines), (std::vector<std::string>{"cut off", "again"}));
  EXPECT_EQ(lines[0].attempt(), 0);
  EXPECT_EQ(lines[1].attempt(), 1);
  EXPECT_EQ(lines[1].role(), "worker");
}

TEST(LogFollowerTest, AFileThatShrankIsReadFromItsStart) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/master-0.log";
  LogFollower follower;
  follower.AddSource(1, "master", 0, path);
  std::ofstream(path) << "a long first line\n";
  ASSERT_EQ(Texts(follower.Poll()), std::vector<std::string>{"a long first line"});
  std::ofstream(path, std::ios::trunc) << "new\n";
  EXPECT_EQ(Texts(follower.Poll()), std::vector<std::string>{"new"});
}

}  // namespace
}  // namespace vernier::tuner
