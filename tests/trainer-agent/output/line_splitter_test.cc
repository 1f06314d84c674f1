#include "trainer-agent/output/line_splitter.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace vernier::agent {
namespace {

using ::testing::ElementsAre;
using ::testing::Pair;

class Collector {
 public:
  LineSplitter::LineCallback callback() {
    return [this](std::string_view line, bool truncated) {
      lines.emplace_back(std::string(line), truncated);
    };
  }
  std::vector<std::pair<std::string, bool>> lines;
};

TEST(LineSplitterTest, JoinsChunksSplitAnywhere) {
  LineSplitter splitter(1024);
  Collector out;
  for (std::string_view chunk : {"ab", "c\nde", "f\n", "", "g"})
    splitter.Feed(chunk, out.callback());
  EXPECT_THAT(out.lines, ElementsAre(Pair("abc", false), Pair("def", false)));
  splitter.Finish(out.callback());
  EXPECT_THAT(out.lines, ElementsAre(Pair("abc", false), Pair("def", false), Pair("g", false)));
}

TEST(LineSplitterTest, CarriageReturnOverwritesUnlessFollowedByNewline) {
  LineSplitter splitter(1024);
  Collector out;
  splitter.Feed("10%\r50%\r", out.callback());
  splitter.Feed("100% loss=1\r", out.callback());
  splitter.Feed("\nwindows\r\nend", out.callback());
  splitter.Finish(out.callback());
  EXPECT_THAT(out.lines,
              ElementsAre(Pair("100% loss=1", false), Pair("windows", false), Pair("end", false)));
}

TEST(LineSplitterTest, CapsLongLinesAndKeepsGoing) {
  LineSplitter splitter(8);
  Collector out;
  splitter.Feed("0123456789", out.callback());
  splitter.Feed("abcdef\nshort\n", out.callback());
  EXPECT_THAT(out.lines, ElementsAre(Pair("01234567", true), Pair("short", false)));
}

TEST(LineSplitterTest, EmptyLinesAreDelivered) {
  LineSplitter splitter(16);
  Collector out;
  splitter.Feed("\n\nx\n", out.callback());
  splitter.Finish(out.callback());
  EXPECT_THAT(out.lines, ElementsAre(Pair("", false), Pair("", false), Pair("x", false)));
}

}  // namespace
}  // namespace vernier::agent
