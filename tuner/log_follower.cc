#include "tuner/log_follower.h"

#include <fstream>

namespace vernier::tuner {

void LogFollower::AddSource(int64_t trial_id, const std::string& role, int index,
                            const std::string& path) {
  if (path.empty() || sources_.contains(path)) return;
  sources_[path] = Source{trial_id, role, index, 0, ""};
}

std::vector<v1::LogLine> LogFollower::Poll() { return Read(false); }

std::vector<v1::LogLine> LogFollower::Drain() { return Read(true); }

std::vector<v1::LogLine> LogFollower::Read(bool include_partial) {
  std::vector<v1::LogLine> lines;
  for (auto& [path, source] : sources_) {
    std::ifstream file(path, std::ios::binary);
    if (file) {
      file.seekg(static_cast<std::streamoff>(source.offset));
      std::string chunk((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
      source.offset += chunk.size();
      source.partial += chunk;
    }
    auto emit = [&](std::string text) {
      v1::LogLine& line = lines.emplace_back();
      line.set_trial_id(source.trial_id);
      line.set_role(source.role);
      line.set_index(source.index);
      line.set_text(std::move(text));
    };
    size_t start = 0;
    for (size_t newline; (newline = source.partial.find('\n', start)) != std::string::npos;
         start = newline + 1) {
      emit(source.partial.substr(start, newline - start));
    }
    source.partial.erase(0, start);
    if (include_partial && !source.partial.empty()) {
      emit(std::move(source.partial));
      source.partial.clear();
    }
  }
  return lines;
}

}  // namespace vernier::tuner
