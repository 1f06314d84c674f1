#include "tuner/cli/table_printer.h"

#include <algorithm>
#include <cstddef>
#include <utility>

#include "text/control_chars.h"

namespace vernier::cli {
namespace {

// Counts code points, not bytes, so that non-ASCII categorical values keep
// the columns aligned.
size_t DisplayWidth(const std::string& text) {
  return std::count_if(text.begin(), text.end(),
                       [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; });
}

// One line, safe on a terminal: newlines and tabs become spaces, other
// control characters are escaped (text::ControlChars::ForTerminal).
std::string TerminalCell(std::string text) {
  std::replace_if(
      text.begin(), text.end(), [](char c) { return c == '\n' || c == '\r' || c == '\t'; }, ' ');
  return text::ControlChars::ForTerminal(text);
}

// Each line of `text` made a TerminalCell, joined with '\n' again.
std::string TerminalLines(const std::string& text) {
  std::string kept;
  size_t start = 0;
  while (true) {
    const size_t end = text.find('\n', start);
    std::string line = text.substr(start, end == std::string::npos ? end : end - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (start > 0) kept += '\n';
    kept += TerminalCell(std::move(line));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  while (!kept.empty() && kept.back() == '\n') kept.pop_back();
  return kept;
}

std::string FirstLine(const std::string& text) { return text.substr(0, text.find('\n')); }

}  // namespace

void TablePrinter::KeepLinesInLastColumn(int column_count) { multiline_column_ = column_count - 1; }

TablePrinter::TablePrinter(std::vector<std::string> headers) : headers_(std::move(headers)) {
  for (std::string& header : headers_) header = TerminalCell(std::move(header));
}

void TablePrinter::SetAlignment(int column, Alignment alignment) {
  if (column < 0) return;
  if (alignments_.size() <= static_cast<size_t>(column)) {
    alignments_.resize(column + 1, Alignment::kLeft);
  }
  alignments_[column] = alignment;
}

void TablePrinter::SetIndent(int spaces) { indent_ = std::max(0, spaces); }

void TablePrinter::AddRow(std::vector<std::string> cells) {
  for (size_t i = 0; i < cells.size(); ++i) {
    cells[i] = static_cast<int>(i) == multiline_column_ ? TerminalLines(cells[i])
                                                        : TerminalCell(std::move(cells[i]));
  }
  rows_.push_back(std::move(cells));
}

std::string TablePrinter::ToString() const {
  std::vector<const std::vector<std::string>*> lines;
  if (!headers_.empty()) lines.push_back(&headers_);
  for (const auto& row : rows_) lines.push_back(&row);

  std::vector<size_t> widths;
  for (const auto* line : lines) {
    if (widths.size() < line->size()) widths.resize(line->size(), 0);
    for (size_t i = 0; i < line->size(); ++i) {
      widths[i] = std::max(widths[i], DisplayWidth(FirstLine((*line)[i])));
    }
  }

  std::string text;
  for (const auto* line : lines) {
    std::string rendered(indent_, ' ');
    std::string continued;  // the multi-line cell's other lines
    for (size_t i = 0; i < widths.size(); ++i) {
      std::string cell = i < line->size() ? (*line)[i] : std::string();
      if (static_cast<int>(i) == multiline_column_ && cell.find('\n') != std::string::npos) {
        const std::string margin(DisplayWidth(rendered) + (i > 0 ? 2 : 0), ' ');
        size_t start = cell.find('\n') + 1;
        while (start <= cell.size()) {
          const size_t end = std::min(cell.find('\n', start), cell.size());
          continued += margin + cell.substr(start, end - start);
          continued.erase(continued.find_last_not_of(' ') + 1);
          continued += '\n';
          start = end + 1;
        }
        cell = FirstLine(cell);
      }
      const size_t padding = widths[i] - DisplayWidth(cell);
      const bool right = i < alignments_.size() && alignments_[i] == Alignment::kRight;
      if (i > 0) rendered += "  ";
      if (right) rendered.append(padding, ' ');
      rendered += cell;
      if (!right) rendered.append(padding, ' ');
    }
    rendered.erase(rendered.find_last_not_of(' ') + 1);
    text += rendered;
    text += '\n';
    text += continued;
  }
  return text;
}

void TablePrinter::Print(std::ostream& out) const { out << ToString(); }

}  // namespace vernier::cli
