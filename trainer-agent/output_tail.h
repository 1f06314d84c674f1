#ifndef VERNIER_TRAINER_AGENT_OUTPUT_TAIL_H_
#define VERNIER_TRAINER_AGENT_OUTPUT_TAIL_H_

#include <cstddef>
#include <deque>
#include <string>
#include <string_view>

#include "trainer-agent/output/line_splitter.h"

namespace vernier::agent {

// The last lines of a program's output, for the error message of a failed
// trial. Lines are capped so that the tail stays small whatever the program
// prints, and made valid UTF-8 (invalid bytes become U+FFFD, a character cut
// by the cap is dropped) since the tail travels in a proto string.
class OutputTail {
 public:
  static constexpr size_t kDefaultLines = 50;
  static constexpr size_t kDefaultMaxLineBytes = 1024;

  explicit OutputTail(size_t max_lines = kDefaultLines,
                      size_t max_line_bytes = kDefaultMaxLineBytes);

  void Append(std::string_view chunk);
  // End of output: keeps an unterminated last line.
  void Finish();

  // The kept lines, each ending in '\n'.
  std::string Text() const;
  size_t line_count() const { return lines_.size(); }

 private:
  void Keep(std::string_view line, bool truncated);

  size_t max_lines_;
  LineSplitter splitter_;
  std::deque<std::string> lines_;
};

}  // namespace vernier::agent

#endif  // VERNIER_TRAINER_AGENT_OUTPUT_TAIL_H_
