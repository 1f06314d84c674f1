#include "text/utf8_text.h"

#include <gtest/gtest.h>

#include <string>

namespace vernier::text {
namespace {

const std::string kReplacement(Utf8Text::kReplacement);

TEST(Utf8TextTest, ValidTextIsValid) {
  EXPECT_TRUE(Utf8Text::IsValid(""));
  EXPECT_TRUE(Utf8Text::IsValid("loss=0.5"));
  EXPECT_TRUE(Utf8Text::IsValid("训练完成 ✓ \xF0\x9F\x98\x80"));
}

TEST(Utf8TextTest, InvalidSequencesAreInvalid) {
  EXPECT_FALSE(Utf8Text::IsValid("\xff"));
  EXPECT_FALSE(Utf8Text::IsValid("\x80"));
  EXPECT_FALSE(Utf8Text::IsValid("\xE8\xAE"));          // cut short
  EXPECT_FALSE(Utf8Text::IsValid("\xC0\xAF"));          // overlong '/'
  EXPECT_FALSE(Utf8Text::IsValid("\xE0\x80\xAF"));      // overlong
  EXPECT_FALSE(Utf8Text::IsValid("\xED\xA0\x80"));      // surrogate
  EXPECT_FALSE(Utf8Text::IsValid("\xF4\x90\x80\x80"));  // past U+10FFFF
}

TEST(Utf8TextTest, FindInvalidGivesTheFirstBadOffset) {
  EXPECT_EQ(Utf8Text::FindInvalid("训练 ok"), std::nullopt);
  EXPECT_EQ(Utf8Text::FindInvalid("ab\xff"), 2u);
  EXPECT_EQ(Utf8Text::FindInvalid("训\xe8\xae"), 3u);
}

TEST(Utf8TextTest, SanitizeKeepsValidText) {
  EXPECT_EQ(Utf8Text::Sanitize("训练 loss=0.5"), "训练 loss=0.5");
  EXPECT_EQ(Utf8Text::Sanitize(std::string("a\0b", 3)), std::string("a\0b", 3));
}

TEST(Utf8TextTest, SanitizeReplacesEachMaximalInvalidSubpart) {
  EXPECT_EQ(Utf8Text::Sanitize("a\xffz"), "a" + kReplacement + "z");
  // A character cut short is one replacement, not one per byte.
  EXPECT_EQ(Utf8Text::Sanitize("loss=0.5 \xE8\xAE"), "loss=0.5 " + kReplacement);
  // Two stray continuation bytes are two.
  EXPECT_EQ(Utf8Text::Sanitize("\x80\x80"), kReplacement + kReplacement);
  // An overlong form: neither byte starts a valid prefix.
  EXPECT_EQ(Utf8Text::Sanitize("\xC0\xAF"), kReplacement + kReplacement);
  EXPECT_EQ(Utf8Text::Sanitize("\xE8\xAE" "x"), kReplacement + "x");
  EXPECT_TRUE(Utf8Text::IsValid(Utf8Text::Sanitize("\xF0\x9F\x98\xff\xfe\xE8")));
}

TEST(Utf8TextTest, EveryByteStringSanitizesToValidText) {
  std::string all;
  for (int byte = 0; byte < 256; ++byte) {
    for (int next : {0x41, 0x80, 0x9F, 0xA0, 0xBF, 0xC2, 0xE0, 0xF0}) {
      all.push_back(static_cast<char>(byte));
      all.push_back(static_cast<char>(next));
    }
  }
  EXPECT_TRUE(Utf8Text::IsValid(Utf8Text::Sanitize(all)));
}

TEST(Utf8TextTest, CutAtCharBoundaryNeverSplitsACharacter) {
  const std::string text = "ab训练";  // 2 + 3 + 3 bytes
  EXPECT_EQ(Utf8Text::CutAtCharBoundary(text, 100), text);
  EXPECT_EQ(Utf8Text::CutAtCharBoundary(text, 2), "ab");
  EXPECT_EQ(Utf8Text::CutAtCharBoundary(text, 3), "ab");
  EXPECT_EQ(Utf8Text::CutAtCharBoundary(text, 4), "ab");
  EXPECT_EQ(Utf8Text::CutAtCharBoundary(text, 5), "ab训");
  EXPECT_EQ(Utf8Text::CutAtCharBoundary(text, 7), "ab训");
  EXPECT_EQ(Utf8Text::CutAtCharBoundary(text, 0), "");
  // Stray continuation bytes are not a character: the cut stays where asked.
  EXPECT_EQ(Utf8Text::CutAtCharBoundary("a\x80\x80\x80\x80\x80", 3), "a\x80\x80");
}

TEST(Utf8TextTest, TrimIncompleteTailDropsACharacterCutShort) {
  EXPECT_EQ(Utf8Text::TrimIncompleteTail("loss \xE8\xAE"), "loss ");
  EXPECT_EQ(Utf8Text::TrimIncompleteTail("loss \xF0\x9F\x98"), "loss ");
  EXPECT_EQ(Utf8Text::TrimIncompleteTail("loss 训"), "loss 训");
  EXPECT_EQ(Utf8Text::TrimIncompleteTail("loss"), "loss");
  EXPECT_EQ(Utf8Text::TrimIncompleteTail(""), "");
  // Not a prefix of a character: left for Sanitize.
  EXPECT_EQ(Utf8Text::TrimIncompleteTail("x\xff"), "x\xff");
}

}  // namespace
}  // namespace vernier::text
