#include "http/query_string.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>

namespace vernier::http {
namespace {

using Params = std::multimap<std::string, std::string>;

TEST(QueryStringTest, AValueKeepsEveryEqualsSignAfterTheFirst) {
  EXPECT_EQ(QueryString::Parse("pageToken=a=b"), (Params{{"pageToken", "a=b"}}));
  EXPECT_EQ(QueryString::Parse("pageToken=YWJj==&pageSize=2"),
            (Params{{"pageSize", "2"}, {"pageToken", "YWJj=="}}));
}

TEST(QueryStringTest, DecodesEscapesAndKeepsRepeatedNames) {
  EXPECT_EQ(QueryString::Parse("states=ACTIVE&states=SUCCEEDED&q=a%20b+c%3D"),
            (Params{{"q", "a b c="}, {"states", "ACTIVE"}, {"states", "SUCCEEDED"}}));
  EXPECT_EQ(QueryString::Parse("flag&&=x&a="), (Params{{"a", ""}, {"flag", ""}}));
  EXPECT_EQ(QueryString::Parse(""), Params{});
}

TEST(QueryStringTest, ABrokenEscapeStaysAsItIs) {
  EXPECT_EQ(QueryString::Decode("100%"), "100%");
  EXPECT_EQ(QueryString::Decode("%zz%4"), "%zz%4");
  EXPECT_EQ(QueryString::Decode("%41%62"), "Ab");
}

}  // namespace
}  // namespace vernier::http
