#include "tuner/config/strict_scalar.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace vernier::config {
namespace {

void ExpectInvalidScalar(const absl::Status& status, const std::string& message) {
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(status.message()), message);
}

TEST(StrictScalarTest, IntegersTakeTheWholeText) {
  EXPECT_EQ(*ParseStrictInteger("42"), 42);
  EXPECT_EQ(*ParseStrictInteger("-7"), -7);
  EXPECT_EQ(*ParseStrictInteger("+7"), 7);
  EXPECT_EQ(*ParseStrictInteger("9223372036854775807"), 9223372036854775807);
  ExpectInvalidScalar(ParseStrictInteger("10abc").status(), "expected an integer, got \"10abc\"");
  ExpectInvalidScalar(ParseStrictInteger("1.0").status(), "expected an integer, got \"1.0\"");
  ExpectInvalidScalar(ParseStrictInteger("").status(), "expected an integer, got \"\"");
  ExpectInvalidScalar(ParseStrictInteger("+-1").status(), "expected an integer, got \"+-1\"");
  ExpectInvalidScalar(ParseStrictInteger("0x10").status(), "expected an integer, got \"0x10\"");
  ExpectInvalidScalar(ParseStrictInteger("9223372036854775808").status(),
                      "integer \"9223372036854775808\" is out of range [-9223372036854775808, "
                      "9223372036854775807]");
}

TEST(StrictScalarTest, DoublesTakeTheWholeTextAndMustBeFinite) {
  EXPECT_EQ(*ParseStrictFiniteDouble("0.25"), 0.25);
  EXPECT_EQ(*ParseStrictFiniteDouble("1e-4"), 1e-4);
  EXPECT_EQ(*ParseStrictFiniteDouble("+3"), 3.0);
  EXPECT_EQ(*ParseStrictFiniteDouble("-2.5E2"), -250.0);
  ExpectInvalidScalar(ParseStrictFiniteDouble("0.1x").status(), "expected a number, got \"0.1x\"");
  ExpectInvalidScalar(ParseStrictFiniteDouble("").status(), "expected a number, got \"\"");
  for (const char* infinite : {".inf", "-.Inf", "+.INF", ".nan", "nan", "inf", "-infinity"}) {
    ExpectInvalidScalar(ParseStrictFiniteDouble(infinite).status(),
                        std::string("expected a finite number, got \"") + infinite + "\"");
  }
  ExpectInvalidScalar(ParseStrictFiniteDouble("1e999").status(),
                      "number \"1e999\" is out of the range of a double");
}

TEST(StrictScalarTest, BooleansAreTrueOrFalseOnly) {
  EXPECT_TRUE(*ParseStrictBoolean("true"));
  EXPECT_TRUE(*ParseStrictBoolean("True"));
  EXPECT_FALSE(*ParseStrictBoolean("FALSE"));
  for (const char* other : {"yes", "no", "on", "1", "0", "tRuE", ""}) {
    ExpectInvalidScalar(ParseStrictBoolean(other).status(),
                        std::string("expected true or false, got \"") + other + "\"");
  }
}

}  // namespace
}  // namespace vernier::config
