#include "tuner/log_follower.h"

#include <filesystem>
#include <fstream>
#include <system_error>

#include "text/utf8_text.h"

namespace vernier::tuner {

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
  std::error_code error;
  const uintmax_t size = std::filesystem::file_size(path, error);
  if (!error && size < source.offset) {
    source.offset = 0;
    source.partial.clear();
  }
  std::ifstream file(path, std::ios::binary);
  if (file) {
    file.seekg(static_cast<std::streamoff>(source.offset));
    std::string chunk((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    source.offset += chunk.size();
    source.partial += chunk;
  }
  auto emit = [&](std::string_view text) {
    v1::LogLine& line = lines.emplace_back();
    line.set_trial_id(source.trial_id);
    line.set_role(source.role);
    line.set_index(source.index);
    line.set_attempt(source.attempt);
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
  return lines;
}

}  // namespace vernier::tuner
