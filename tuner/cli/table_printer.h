#ifndef VERNIER_TUNER_CLI_TABLE_PRINTER_H_
#define VERNIER_TUNER_CLI_TABLE_PRINTER_H_

#include <ostream>
#include <string>
#include <vector>

namespace vernier::cli {

// Aligned text columns for terminals: two spaces between columns, widths in
// UTF-8 code points, no trailing whitespace. Without headers it prints
// "key: value" blocks aligned the same way.
class TablePrinter {
 public:
  enum class Alignment { kLeft, kRight };

  explicit TablePrinter(std::vector<std::string> headers = {});

  void SetAlignment(int column, Alignment alignment);
  // Spaces before every line, for tables nested under a heading.
  void SetIndent(int spaces);
  // The last column keeps its cells' lines (a failure's traceback): the
  // first on the row, the others below it, indented to the column. Call
  // before AddRow.
  void KeepLinesInLastColumn(int column_count);
  // Newlines and tabs in cells become spaces so that a row stays one line
  // (but see KeepLinesInLastColumn);
  // other control characters (ESC, CR, C1) are escaped
  // (text::ControlChars::ForTerminal), in headers too.
  void AddRow(std::vector<std::string> cells);

  bool empty() const { return rows_.empty(); }
  std::string ToString() const;
  void Print(std::ostream& out) const;

 private:
  std::vector<std::string> headers_;
  std::vector<std::vector<std::string>> rows_;
  std::vector<Alignment> alignments_;
  int indent_ = 0;
  // The column whose cells keep their lines; -1: none.
  int multiline_column_ = -1;
};

}  // namespace vernier::cli

#endif  // VERNIER_TUNER_CLI_TABLE_PRINTER_H_
