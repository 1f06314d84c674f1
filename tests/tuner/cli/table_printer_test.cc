#include "tuner/cli/table_printer.h"

#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace vernier::cli {
namespace {

TEST(TablePrinterTest, AlignsColumnsToTheWidestCellWithTwoSpaces) {
  TablePrinter table({"NAME", "STATE"});
  table.AddRow({"a_long_name", "ACTIVE"});
  table.AddRow({"x", "SUCCEEDED"});
  EXPECT_EQ(table.ToString(),
            "NAME         STATE\n"
            "a_long_name  ACTIVE\n"
            "x            SUCCEEDED\n");
}

TEST(TablePrinterTest, RightAlignedColumnsPadOnTheLeft) {
  TablePrinter table({"TRIAL", "OBJECTIVE", "NOTE"});
  table.SetAlignment(0, TablePrinter::Alignment::kRight);
  table.SetAlignment(1, TablePrinter::Alignment::kRight);
  table.AddRow({"1", "0.5", "a"});
  table.AddRow({"12", "0.91234", "b"});
  EXPECT_EQ(table.ToString(),
            "TRIAL  OBJECTIVE  NOTE\n"
            "    1        0.5  a\n"
            "   12    0.91234  b\n");
}

TEST(TablePrinterTest, NeverLeavesTrailingSpaces) {
  TablePrinter table({"A", "B"});
  table.AddRow({"value", ""});
  EXPECT_EQ(table.ToString(), "A      B\nvalue\n");
}

TEST(TablePrinterTest, WithoutHeadersPrintsAlignedKeyValueRows) {
  TablePrinter fields;
  fields.AddRow({"Job:", "j1"});
  fields.AddRow({"Best trial:", "3"});
  EXPECT_EQ(fields.ToString(), "Job:         j1\nBest trial:  3\n");
}

TEST(TablePrinterTest, IndentPrefixesEveryLine) {
  TablePrinter table({"A"});
  table.SetIndent(2);
  table.AddRow({"x"});
  EXPECT_EQ(table.ToString(), "  A\n  x\n");
}

TEST(TablePrinterTest, MeasuresWidthInCodePointsNotBytes) {
  TablePrinter table({"OPT", "N"});
  table.AddRow({"\xC3\xA9t\xC3\xA9", "1"});  // "été": 3 code points, 5 bytes
  table.AddRow({"abcd", "2"});
  EXPECT_EQ(table.ToString(),
            "OPT   N\n"
            "\xC3\xA9t\xC3\xA9   1\n"
            "abcd  2\n");
}

TEST(TablePrinterTest, KeepsEachRowOnOneLine) {
  TablePrinter table({"REASON"});
  table.AddRow({"line one\nline\ttwo"});
  EXPECT_EQ(table.ToString(), "REASON\nline one line two\n");
}

TEST(TablePrinterTest, TheLastColumnMayKeepItsLinesIndentedUnderIt) {
  TablePrinter table({"TRIAL", "STATE", "REASON"});
  table.KeepLinesInLastColumn(3);
  table.AddRow(
      {"1", "FAILED", "master-0 exited with code 1; last output:\nTraceback:\r\n  x\tz\n"});
  table.AddRow({"2", "SUCCEEDED", ""});
  EXPECT_EQ(table.ToString(),
            "TRIAL  STATE      REASON\n"
            "1      FAILED     master-0 exited with code 1; last output:\n"
            "                  Traceback:\n"
            "                    x z\n"
            "2      SUCCEEDED\n");
}

TEST(TablePrinterTest, EscapesWhatATerminalWouldObey) {
  // A study name that clears the screen, a value that retitles the window,
  // a C1 CSI: shown escaped, and measured as shown.
  TablePrinter table({"NAME", "VALUE"});
  table.AddRow({"s\x1b[2J", "\x1b]0;owned\x07"});
  table.AddRow(
      {"t\xc2\x9b"
       "2J",
       "ok"});
  EXPECT_EQ(table.ToString(),
            "NAME       VALUE\n"
            "s\\x1b[2J   \\x1b]0;owned\\x07\n"
            "t\\u009b2J  ok\n");
}

TEST(TablePrinterTest, ShortRowsGetEmptyCellsAndLongRowsWidenTheTable) {
  TablePrinter table({"A", "B"});
  table.AddRow({"1"});
  table.AddRow({"1", "2", "3"});
  EXPECT_EQ(table.ToString(), "A  B\n1\n1  2  3\n");
}

TEST(TablePrinterTest, PrintWritesTheSameTextToAStream) {
  TablePrinter table({"A"});
  table.AddRow({"b"});
  std::ostringstream out;
  table.Print(out);
  EXPECT_EQ(out.str(), table.ToString());
  EXPECT_FALSE(table.empty());
  EXPECT_TRUE(TablePrinter({"A"}).empty());
}

}  // namespace
}  // namespace vernier::cli
