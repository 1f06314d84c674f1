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

TEST(ControlCharsTest, ForTerminalEscapesWhatATerminalWouldObey) {
  EXPECT_EQ(ControlChars::ForTerminal("lr=0.1 训练 ✓ é C:\\tmp"), "lr=0.1 训练 ✓ é C:\\tmp");
  // Clear the screen; set the window title; a carriage return over the line.
  EXPECT_EQ(ControlChars::ForTerminal("a\x1b[2Jb"), "a\\x1b[2Jb");
  EXPECT_EQ(ControlChars::ForTerminal("\x1b]0;owned\x07"), "\\x1b]0;owned\\x07");
  EXPECT_EQ(ControlChars::ForTerminal("ok\rfake"), "ok\\rfake");
  EXPECT_EQ(ControlChars::ForTerminal(std::string("a\0\x7f", 3)), "a\\0\\x7f");
  // Tabs and newlines stay.
  EXPECT_EQ(ControlChars::ForTerminal("a\tb\nc"), "a\tb\nc");
  // C1: CSI as U+009B, and as a lone byte.
  EXPECT_EQ(ControlChars::ForTerminal("x\xc2\x9b"
                                      "2J"),
            "x\\u009b2J");
  EXPECT_EQ(ControlChars::ForTerminal("x\x9b"
                                      "2J"),
            "x\\x9b2J");
  // Other invalid bytes and U+00A0 (not a control) stay as they are.
  EXPECT_EQ(ControlChars::ForTerminal("\xff\xc2\xa0"), "\xff\xc2\xa0");
}

TEST(ControlCharsTest, RefusalNamesTheFieldAndTheCharacter) {
  EXPECT_EQ(ControlChars::Refusal("job dir", "/data/job"), std::nullopt);
  EXPECT_EQ(ControlChars::Refusal("job dir", "/data\nrm"),
            "job dir contains a control character (\\n at byte 5); newlines, NUL and other "
            "control characters are not allowed");
}

}  // namespace
}  // namespace vernier::text
