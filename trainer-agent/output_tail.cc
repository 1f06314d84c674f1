#include "trainer-agent/output_tail.h"

#include "absl/strings/str_cat.h"

namespace vernier::agent {

OutputTail::OutputTail(size_t max_lines, size_t max_line_bytes)
    : max_lines_(max_lines == 0 ? 1 : max_lines), splitter_(max_line_bytes) {}

void OutputTail::Append(std::string_view chunk) {
  splitter_.Feed(chunk, [this](std::string_view line, bool truncated) { Keep(line, truncated); });
}

void OutputTail::Finish() {
  splitter_.Finish([this](std::string_view line, bool truncated) { Keep(line, truncated); });
}

void OutputTail::Keep(std::string_view line, bool truncated) {
  lines_.push_back(truncated ? absl::StrCat(std::string(line), " [line truncated]")
                             : std::string(line));
  if (lines_.size() > max_lines_) lines_.pop_front();
}

std::string OutputTail::Text() const {
  std::string text;
  for (const std::string& line : lines_) absl::StrAppend(&text, line, "\n");
  return text;
}

}  // namespace vernier::agent
