#include "text/control_chars.h"

#include <gtest/gtest.h>

#include <string>

namespace vernier::text {
namespace {

TEST(ControlCharsTest, FindsTheFirstControlCharacter) {
  EXPECT_EQ(ControlChars::Find("/data/job"), std::nullopt);
  EXPECT_EQ(ControlChars::Find("训练 ✓"), std::nullopt);
  EXPECT_EQ(ControlChars::Find("/data\n#SBATCH x"), 5u);
  EXPECT_EQ(ControlChars::Find(std::string("a\0b", 3)), 1u);
  EXPECT_EQ(ControlChars::Find("a\rb"), 1u);
  EXPECT_EQ(ControlChars::Find("a\x1b[31m"), 1u);
  EXPECT_EQ(ControlChars::Find("a\x7f"), 1u);
}

TEST(ControlCharsTest, EscapeKeepsTextOnOneLine) {
  EXPECT_EQ(ControlChars::Escape("lr=0.1"), "lr=0.1");
  EXPECT_EQ(ControlChars::Escape("x\n[vernier-agent] forged"), "x\\n[vernier-agent] forged");
  EXPECT_EQ(ControlChars::Escape(std::string("a\0\r\t\x1b\\", 6)), "a\\0\\r\\t\\x1b\\\\");
}

TEST(ControlCharsTest, RefusalNamesTheFieldAndTheCharacter) {
  EXPECT_EQ(ControlChars::Refusal("job dir", "/data/job"), std::nullopt);
  EXPECT_EQ(ControlChars::Refusal("job dir", "/data\nrm"),
            "job dir contains a control character (\\n at byte 5); newlines, NUL and other "
            "control characters are not allowed");
}

}  // namespace
}  // namespace vernier::text
