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

}  // namespace

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
  for (std::string& cell : cells) cell = TerminalCell(std::move(cell));
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
      widths[i] = std::max(widths[i], DisplayWidth((*line)[i]));
    }
  }

  std::string text;
  for (const auto* line : lines) {
    std::string rendered(indent_, ' ');
    for (size_t i = 0; i < widths.size(); ++i) {
      const std::string cell = i < line->size() ? (*line)[i] : std::string();
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
  }
  return text;
}

void TablePrinter::Print(std::ostream& out) const { out << ToString(); }

}  // namespace vernier::cli
