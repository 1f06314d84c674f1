#ifndef VERNIER_TRAINER_AGENT_OUTPUT_LINE_SPLITTER_H_
#define VERNIER_TRAINER_AGENT_OUTPUT_LINE_SPLITTER_H_

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace vernier::agent {

// Cuts a byte stream that arrives in arbitrary chunks into lines.
//
// A line ends at '\n' ("\r\n" counts as one end). A lone '\r' behaves as on a
// terminal: the text after it overwrites the line, so a progress bar that
// redraws itself yields only its final state. Lines longer than
// `max_line_bytes` keep their first `max_line_bytes` bytes and are delivered
// with `truncated` set; the rest of such a line is discarded, so memory stays
// bounded whatever the input.
class LineSplitter {
 public:
  using LineCallback = std::function<void(std::string_view line, bool truncated)>;

  explicit LineSplitter(size_t max_line_bytes);

  void Feed(std::string_view chunk, const LineCallback& on_line);
  // Delivers an unterminated last line, if any (end of stream).
  void Finish(const LineCallback& on_line);

  size_t max_line_bytes() const { return max_line_bytes_; }

 private:
  void Emit(const LineCallback& on_line);

  size_t max_line_bytes_;
  std::string line_;
  bool truncated_ = false;
  bool pending_carriage_return_ = false;
};

}  // namespace vernier::agent

#endif  // VERNIER_TRAINER_AGENT_OUTPUT_LINE_SPLITTER_H_
