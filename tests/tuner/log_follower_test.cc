#include "tuner/log_follower.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace vernier::tuner
