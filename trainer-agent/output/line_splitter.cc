#include "trainer-agent/output/line_splitter.h"

namespace vernier::agent {

LineSplitter::LineSplitter(size_t max_line_bytes)
    : max_line_bytes_(max_line_bytes == 0 ? 1 : max_line_bytes) {}

void LineSplitter::Feed(std::string_view chunk, const LineCallback& on_line) {
  size_t pos = 0;
  while (pos < chunk.size()) {
    const char c = chunk[pos];
    if (pending_carriage_return_) {
      pending_carriage_return_ = false;
      if (c != '\n') {
        line_.clear();
        truncated_ = false;
      }
    }
    if (c == '\n') {
      Emit(on_line);
      ++pos;
      continue;
    }
    if (c == '\r') {
      pending_carriage_return_ = true;
      ++pos;
      continue;
    }
    // Copy the run of ordinary bytes up to the next control character at once.
    size_t end = chunk.find_first_of("\r\n", pos);
    if (end == std::string_view::npos) end = chunk.size();
    const std::string_view run = chunk.substr(pos, end - pos);
    const size_t room = max_line_bytes_ - line_.size();
    if (run.size() > room) {
      line_.append(run.substr(0, room));
      truncated_ = true;
    } else {
      line_.append(run);
    }
    pos = end;
  }
}

void LineSplitter::Finish(const LineCallback& on_line) {
  pending_carriage_return_ = false;
  if (!line_.empty() || truncated_) Emit(on_line);
}

void LineSplitter::Emit(const LineCallback& on_line) {
  on_line(line_, truncated_);
  line_.clear();
  truncated_ = false;
}

}  // namespace vernier::agent
