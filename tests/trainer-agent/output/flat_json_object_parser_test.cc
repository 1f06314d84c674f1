#include "trainer-agent/output/flat_json_object_parser.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace vernier::agent {
namespace {

using ::testing::HasSubstr;
using ::testing::SizeIs;

TEST(FlatJsonObjectParserTest, ParsesAHypertuneRecord) {
  const auto fields = FlatJsonObjectParser::Parse(
      R"({"accuracy": 0.91, "global_step": "120", "trial": "3", "timestamp": 1700000000.1,)"
      R"( "ok": true, "bad": false, "none": null, "neg": -2.5e-3})");
  ASSERT_TRUE(fields.ok()) << fields.status();
  ASSERT_THAT(*fields, SizeIs(8));
  EXPECT_EQ((*fields)[0].key, "accuracy");
  EXPECT_DOUBLE_EQ(std::get<double>((*fields)[0].value), 0.91);
  EXPECT_EQ(std::get<std::string>((*fields)[1].value), "120");
  EXPECT_DOUBLE_EQ(std::get<double>((*fields)[3].value), 1700000000.1);
  EXPECT_TRUE(std::get<bool>((*fields)[4].value));
  EXPECT_FALSE(std::get<bool>((*fields)[5].value));
  EXPECT_TRUE(std::holds_alternative<std::nullptr_t>((*fields)[6].value));
  EXPECT_DOUBLE_EQ(std::get<double>((*fields)[7].value), -2.5e-3);
}

TEST(FlatJsonObjectParserTest, EmptyObjectAndWhitespace) {
  const auto fields = FlatJsonObjectParser::Parse("  { }  ");
  ASSERT_TRUE(fields.ok()) << fields.status();
  EXPECT_TRUE(fields->empty());
}

TEST(FlatJsonObjectParserTest, DecodesEscapes) {
  const auto fields =
      FlatJsonObjectParser::Parse(R"({"path": "a\/b\\c\"d\n\t", "u": "\u00e9\u4e2d\ud83d\ude00"})");
  ASSERT_TRUE(fields.ok()) << fields.status();
  EXPECT_EQ(std::get<std::string>((*fields)[0].value), "a/b\\c\"d\n\t");
  EXPECT_EQ(std::get<std::string>((*fields)[1].value), "\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80");
}

TEST(FlatJsonObjectParserTest, AcceptsPythonNonFiniteFloats) {
  const auto fields = FlatJsonObjectParser::Parse(R"({"a": NaN, "b": Infinity, "c": -Infinity})");
  ASSERT_TRUE(fields.ok()) << fields.status();
  EXPECT_TRUE(std::isnan(std::get<double>((*fields)[0].value)));
  EXPECT_EQ(std::get<double>((*fields)[1].value), INFINITY);
  EXPECT_EQ(std::get<double>((*fields)[2].value), -INFINITY);
}

struct BadJson {
  std::string text;
  std::string message;
};

class FlatJsonObjectParserErrorTest : public ::testing::TestWithParam<BadJson> {};

TEST_P(FlatJsonObjectParserErrorTest, NamesTheColumnAndTheProblem) {
  const auto fields = FlatJsonObjectParser::Parse(GetParam().text);
  ASSERT_FALSE(fields.ok()) << GetParam().text;
  EXPECT_EQ(fields.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(fields.status().message(), HasSubstr(GetParam().message));
}

INSTANTIATE_TEST_SUITE_P(
    Errors, FlatJsonObjectParserErrorTest,
    ::testing::Values(
        BadJson{"", "JSON column 1: expected '{' to open an object"},
        BadJson{"[1]", "JSON column 1: expected '{'"},
        BadJson{R"({"a" 1})", "JSON column 6: expected ':' after key \"a\""},
        BadJson{R"({a: 1})", "JSON column 2: expected a string key"},
        BadJson{R"({"a": 1)", "JSON column 8: expected ',' or '}' after a value"},
        BadJson{R"({"a": 1} x)", "JSON column 10: unexpected text after the object"},
        BadJson{R"({"a": {"b": 1}})", "value of key \"a\" is an object or array"},
        BadJson{R"({"a": [1, 2]})", "value of key \"a\" is an object or array"},
        BadJson{R"({"a": tru})", "invalid value for key \"a\""},
        BadJson{R"({"a": )", "missing value for key \"a\""},
        BadJson{R"({"a": "x)", "unterminated string"},
        BadJson{R"({"a": "\q"})", "invalid escape '\\q'"},
        BadJson{R"({"a": "\u12"})", "expected four hex digits after \\u"},
        BadJson{R"({"a": "\ud83d"})", "high surrogate without a following \\u low surrogate"},
        BadJson{R"({"a": "\ude00"})", "low surrogate without a preceding high surrogate"},
        BadJson{R"({"a": 1.})", "expected a digit after '.'"},
        BadJson{R"({"a": 1e})", "expected a digit in the exponent"},
        BadJson{R"({"a": -})", "expected a digit"},
        BadJson{"{\"a\": \"x\ty\"}", "control character inside a string"}));

}  // namespace
}  // namespace vernier::agent
