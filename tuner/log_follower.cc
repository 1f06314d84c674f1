#include "tuner/log_follower.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <optional>
#include <string_view>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "text/utf8_text.h"

namespace vernier::tuner {
namespace {

// The prefix the replica's vernier-agent puts on its own lines
// (Agent::LogPrefix): "[vernier-agent study=STUDY trial=T ROLE-INDEX] ".
// The text after it when `text` starts with the one of this replica.
std::optional<std::string_view> AfterAgentPrefix(std::string_view text, int64_t trial_id,
                                                 const std::string& role, int index) {
  constexpr std::string_view kStart = "[vernier-agent study=";
  if (text.substr(0, kStart.size()) != kStart) return std::nullopt;
  const std::string end = absl::StrCat(" trial=", trial_id, " ", role, "-", index, "] ");
  const size_t at = text.find(end, kStart.size());
  if (at == std::string_view::npos) return std::nullopt;
  // The study name holds no space or bracket.
  if (text.substr(kStart.size(), at - kStart.size()).find_first_of(" []") !=
      std::string_view::npos) {
    return std::nullopt;
  }
  return text.substr(at + end.size());
}

}  // namespace

void LogFollower::AddSource(int64_t trial_id, const std::string& role, int index,
                            const std::string& path, int attempt) {
  if (path.empty()) return;
  auto it = sources_.find(path);
  if (it == sources_.end()) {
    sources_[path] = Source{trial_id, role, index, attempt, 0, ""};
    return;
  }
  if (it->second.attempt == attempt) return;
  // The earlier attempt's replica has ended before the retry started: what
  // the file holds now is its output.
  ReadSource(path, it->second, /*include_partial=*/true, earlier_attempts_);
  it->second.attempt = attempt;
}

std::vector<v1::LogLine> LogFollower::Poll() { return Read(false); }

std::vector<v1::LogLine> LogFollower::Drain() { return Read(true); }

void LogFollower::ReadSource(const std::string& path, Source& source, bool include_partial,
                             std::vector<v1::LogLine>& lines) {
  // A log the server made is a regular file; a symbolic link planted in its
  // place (to a file only the server may read, say) is never followed, and
  // a FIFO never blocks the stream.
  const int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd >= 0) {
    absl::Cleanup close_file = [fd] { close(fd); };
    struct stat info;
    if (fstat(fd, &info) == 0 && S_ISREG(info.st_mode)) {
      if (static_cast<uint64_t>(info.st_size) < source.offset) {
        source.offset = 0;
        source.partial.clear();
      }
      char buffer[65536];
      for (;;) {
        const ssize_t size =
            pread(fd, buffer, sizeof(buffer), static_cast<off_t>(source.offset));
        if (size < 0 && errno == EINTR) continue;
        if (size <= 0) break;
        source.offset += static_cast<uint64_t>(size);
        source.partial.append(buffer, static_cast<size_t>(size));
      }
    }
  }
  auto emit = [&](std::string_view text) {
    v1::LogLine& line = lines.emplace_back();
    line.set_trial_id(source.trial_id);
    line.set_role(source.role);
    line.set_index(source.index);
    line.set_attempt(source.attempt);
    if (std::optional<std::string_view> rest =
            AfterAgentPrefix(text, source.trial_id, source.role, source.index)) {
      line.set_agent(true);
      text = *rest;
    }
    // A trainer may print any bytes; a proto string must be UTF-8, or the
    // stream fails to serialize the line.
    line.set_text(text::Utf8Text::Sanitize(text));
  };
  size_t start = 0;
  for (size_t newline; (newline = source.partial.find('\n', start)) != std::string::npos;
       start = newline + 1) {
    emit(source.partial.substr(start, newline - start));
  }
  source.partial.erase(0, start);
  if (include_partial && !source.partial.empty()) {
    emit(source.partial);
    source.partial.clear();
  }
}

std::vector<v1::LogLine> LogFollower::Read(bool include_partial) {
  std::vector<v1::LogLine> lines;
  lines.swap(earlier_attempts_);
  for (auto& [path, source] : sources_) ReadSource(path, source, include_partial, lines);
  // Trial 2 before trial 10 (the sources are ordered by path); each file's
  // lines, and an earlier attempt's before a later one's, keep their order.
  std::stable_sort(lines.begin(), lines.end(), [](const v1::LogLine& a, const v1::LogLine& b) {
    return a.trial_id() < b.trial_id();
  });
  return lines;
}

}  // namespace vernier::tuner
