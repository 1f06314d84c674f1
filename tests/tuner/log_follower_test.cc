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

TEST(LogFollowerTest, TrialsComeInNumericOrderNotInPathOrder) {
  testing::TempDir dir;
  LogFollower follower;
  for (const int trial : {10, 2, 1}) {
    const std::string folder = dir.path() + "/" + std::to_string(trial);
    std::filesystem::create_directories(folder);
    std::ofstream(folder + "/master-0.log") << "trial " << trial << " a\ntrial " << trial << " b\n";
    follower.AddSource(trial, "master", 0, folder + "/master-0.log");
  }
  EXPECT_EQ(Texts(follower.Drain()),
            (std::vector<std::string>{"trial 1 a", "trial 1 b", "trial 2 a", "trial 2 b",
                                      "trial 10 a", "trial 10 b"}));
}

TEST(LogFollowerTest, TheAgentsOwnLinesAreMarkedAndLoseTheirPrefix) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/worker-1.log";
  std::ofstream(path)
      << "[vernier-agent study=job_7 trial=3 worker-1] 2026-11-26T04:00:00.000 info: started\n"
      << "loss=0.5\n"
      // Another replica's prefix, or a broken one, is the trainer's text.
      << "[vernier-agent study=job_7 trial=4 worker-1] 2026 info: not mine\n"
      << "[vernier-agent study=a b trial=3 worker-1] x\n";
  LogFollower follower;
  follower.AddSource(3, "worker", 1, path);
  const std::vector<v1::LogLine> lines = follower.Drain();
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_TRUE(lines[0].agent());
  EXPECT_EQ(lines[0].text(), "2026-11-26T04:00:00.000 info: started");
  for (size_t i = 1; i < lines.size(); ++i) EXPECT_FALSE(lines[i].agent()) << lines[i].text();
  EXPECT_EQ(lines[2].text(), "[vernier-agent study=job_7 trial=4 worker-1] 2026 info: not mine");
}

}  // namespace
}  // namespace vernier::tuner
