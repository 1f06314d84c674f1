#include "trainer-agent/output_tail.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "text/utf8_text.h"

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
  // The text goes into a proto string: valid UTF-8 only, and a character the
  // byte limit cut in two is left out rather than replaced.
  if (truncated) line = text::Utf8Text::TrimIncompleteTail(line);
  std::string kept = text::Utf8Text::Sanitize(line);
  lines_.push_back(truncated ? absl::StrCat(kept, " [line truncated]") : std::move(kept));
  if (lines_.size() > max_lines_) lines_.pop_front();
}

std::string OutputTail::Text() const {
  std::string text;
  for (const std::string& line : lines_) absl::StrAppend(&text, line, "\n");
  return text;
}

}  // namespace vernier::agent
