#include "trainer-agent/process_tree.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <charconv>
#include <cstdlib>
#include <map>
#include <string>

namespace vernier::agent {
namespace {

std::optional<pid_t> ParsePid(std::string_view text) {
  pid_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value <= 0) return std::nullopt;
  return value;
}

}  // namespace

std::optional<ProcessEntry> ProcessTree::ParseStat(std::string_view stat) {
  const size_t open = stat.find(" (");
  const size_t close = stat.rfind(") ");
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
    return std::nullopt;
  }
  const std::optional<pid_t> pid = ParsePid(stat.substr(0, open));
  std::string_view rest = stat.substr(close + 2);
  if (!pid.has_value() || rest.size() < 3 || rest[1] != ' ') return std::nullopt;
  const char state = rest[0];
  rest.remove_prefix(2);
  const size_t space = rest.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  // Process 1's parent is 0, which ParsePid rejects; it is nobody's
  // descendant anyway.
  const std::optional<pid_t> parent = ParsePid(rest.substr(0, space));
  rest.remove_prefix(space + 1);
  const std::optional<pid_t> group = ParsePid(rest.substr(0, rest.find(' ')));
  return ProcessEntry{*pid, parent.value_or(0), state, group.value_or(0)};
}

std::vector<ProcessEntry> ProcessTree::Scan() {
  std::vector<ProcessEntry> table;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return table;
  while (const dirent* entry = readdir(proc)) {
    if (!ParsePid(entry->d_name).has_value()) continue;
    const std::string path = std::string("/proc/") + entry->d_name + "/stat";
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    char buffer[1024];
    const ssize_t got = read(fd, buffer, sizeof(buffer) - 1);
    close(fd);
    if (got <= 0) continue;
    if (std::optional<ProcessEntry> parsed =
            ParseStat(std::string_view(buffer, static_cast<size_t>(got)))) {
      table.push_back(*parsed);
    }
  }
  closedir(proc);
  return table;
}

std::vector<ProcessEntry> ProcessTree::Descendants(pid_t root,
                                                   const std::vector<ProcessEntry>& table) {
  std::multimap<pid_t, const ProcessEntry*> children;
  for (const ProcessEntry& entry : table) children.emplace(entry.parent, &entry);
  std::vector<ProcessEntry> found;
  std::vector<pid_t> frontier = {root};
  // A child is found only through its parent, so parents come first; the
  // size bound guards against a cycle in a table torn by a racing scan.
  while (!frontier.empty() && found.size() <= table.size()) {
    const pid_t parent = frontier.back();
    frontier.pop_back();
    const auto [first, last] = children.equal_range(parent);
    for (auto it = first; it != last; ++it) {
      if (it->second->pid == root) continue;
      found.push_back(*it->second);
      frontier.push_back(it->second->pid);
    }
  }
  return found;
}

}  // namespace vernier::agent
