#include "scheduler/local/process_table.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "absl/cleanup/cleanup.h"
#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace vernier::scheduler {
namespace {

// Positions in the fields that follow the command name, counting the state
// (field 3 of proc(5)) as 0.
constexpr size_t kStateField = 0;
constexpr size_t kParentPidField = 1;
constexpr size_t kProcessGroupField = 2;
constexpr size_t kSessionField = 3;
constexpr size_t kStartTimeField = 19;  // field 22 of proc(5)

absl::Status Malformed(absl::string_view line, absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("malformed /proc stat line (", why, "): '", line, "'"));
}

template <typename Int>
bool ParseField(const std::vector<absl::string_view>& fields, size_t index, Int* value) {
  return index < fields.size() && absl::SimpleAtoi(fields[index], value);
}

}  // namespace

ProcessTable::ProcessTable(std::string proc_root) : proc_root_(std::move(proc_root)) {}

absl::StatusOr<ProcessStat> ProcessTable::ParseStat(absl::string_view line) {
  while (!line.empty() && (line.back() == '\n' || line.back() == '\0')) line.remove_suffix(1);
  const size_t open = line.find('(');
  const size_t close = line.rfind(')');
  if (open == absl::string_view::npos || close == absl::string_view::npos || close < open) {
    return Malformed(line, "no '(command)'");
  }
  ProcessStat stat;
  absl::string_view pid_text = line.substr(0, open);
  while (!pid_text.empty() && pid_text.back() == ' ') pid_text.remove_suffix(1);
  if (!absl::SimpleAtoi(pid_text, &stat.pid) || stat.pid <= 0) {
    return Malformed(line, "no pid before the command");
  }
  stat.comm = std::string(line.substr(open + 1, close - open - 1));
  const std::vector<absl::string_view> fields =
      absl::StrSplit(line.substr(close + 1), ' ', absl::SkipEmpty());
  if (fields.size() <= kStartTimeField) {
    return Malformed(line, absl::StrCat("only ", fields.size(), " fields after the command, need ",
                                        kStartTimeField + 1));
  }
  if (fields[kStateField].size() != 1) return Malformed(line, "state is not one letter");
  stat.state = fields[kStateField][0];
  if (!ParseField(fields, kParentPidField, &stat.parent_pid) ||
      !ParseField(fields, kProcessGroupField, &stat.process_group) ||
      !ParseField(fields, kSessionField, &stat.session)) {
    return Malformed(line, "parent pid, process group or session is not a number");
  }
  if (!ParseField(fields, kStartTimeField, &stat.start_time_ticks)) {
    return Malformed(line, "start time is not a number");
  }
  return stat;
}

absl::StatusOr<std::string> ProcessTable::ReadProcessFile(pid_t pid, absl::string_view name) const {
  if (pid <= 0) return absl::InvalidArgumentError(absl::StrCat("invalid pid ", pid));
  const std::string path = absl::StrCat(proc_root_, "/", pid, "/", name);
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT || errno == ESRCH) {
      return absl::NotFoundError(absl::StrCat("no process with pid ", pid));
    }
    return absl::ErrnoToStatus(errno, absl::StrCat("cannot open ", path));
  }
  absl::Cleanup close_fd = [fd] { close(fd); };
  // stat comes in one read; a long command line in several.
  std::string text;
  char buffer[4096];
  for (;;) {
    const ssize_t size = read(fd, buffer, sizeof(buffer));
    if (size < 0 && errno == EINTR) continue;
    if (size < 0) {
      // The process was removed between open and read.
      if (errno == ESRCH) return absl::NotFoundError(absl::StrCat("no process with pid ", pid));
      return absl::ErrnoToStatus(errno, absl::StrCat("cannot read ", path));
    }
    if (size == 0) break;
    text.append(buffer, static_cast<size_t>(size));
  }
  return text;
}

absl::StatusOr<ProcessStat> ProcessTable::Stat(pid_t pid) const {
  absl::StatusOr<std::string> line = ReadProcessFile(pid, "stat");
  if (!line.ok()) return line.status();
  if (line->empty()) return absl::NotFoundError(absl::StrCat("no process with pid ", pid));
  return ParseStat(*line);
}

absl::StatusOr<std::vector<ProcessStat>> ProcessTable::LiveProcesses(
    const std::function<bool(const ProcessStat&)>& keep) const {
  DIR* dir = opendir(proc_root_.c_str());
  if (dir == nullptr) return absl::ErrnoToStatus(errno, absl::StrCat("cannot list ", proc_root_));
  absl::Cleanup close_dir = [dir] { closedir(dir); };
  std::vector<ProcessStat> kept;
  while (const dirent* entry = readdir(dir)) {
    pid_t pid;
    if (!absl::SimpleAtoi(entry->d_name, &pid) || pid <= 0) continue;
    absl::StatusOr<ProcessStat> stat = Stat(pid);
    // A process that vanished since readdir is not there any more.
    if (!stat.ok()) continue;
    if (!stat->HasEnded() && keep(*stat)) kept.push_back(*std::move(stat));
  }
  return kept;
}

absl::StatusOr<std::vector<pid_t>> ProcessTable::LiveMembersOfGroup(pid_t process_group) const {
  absl::StatusOr<std::vector<ProcessStat>> members = LiveProcesses(
      [process_group](const ProcessStat& stat) { return stat.process_group == process_group; });
  if (!members.ok()) return members.status();
  std::vector<pid_t> pids;
  for (const ProcessStat& member : *members) pids.push_back(member.pid);
  return pids;
}

absl::StatusOr<std::vector<ProcessStat>> ProcessTable::LiveSessionLeaders() const {
  return LiveProcesses([](const ProcessStat& stat) { return stat.session == stat.pid; });
}

absl::StatusOr<std::vector<std::string>> ProcessTable::CommandLine(pid_t pid) const {
  absl::StatusOr<std::string> text = ReadProcessFile(pid, "cmdline");
  if (!text.ok()) return text.status();
  if (text->empty()) return absl::NotFoundError(absl::StrCat("no command line for pid ", pid));
  // Each word ends with a NUL.
  if (text->back() == '\0') text->pop_back();
  return absl::StrSplit(*text, '\0');
}

}  // namespace vernier::scheduler
