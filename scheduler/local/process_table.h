#ifndef VERNIER_SCHEDULER_LOCAL_PROCESS_TABLE_H_
#define VERNIER_SCHEDULER_LOCAL_PROCESS_TABLE_H_

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace vernier::scheduler {

// The fields of /proc/PID/stat that tell which process a PID names now.
struct ProcessStat {
  pid_t pid = 0;
  std::string comm;
  char state = '?';
  pid_t parent_pid = 0;
  pid_t process_group = 0;
  pid_t session = 0;
  // Clock ticks since boot when the process was forked; together with the
  // PID it names one process for the lifetime of the machine, because a
  // reused PID gets a later start time.
  uint64_t start_time_ticks = 0;

  // A zombie has ended and only waits to be reaped; 'X' is the instant of
  // its removal.
  bool HasEnded() const { return state == 'Z' || state == 'X'; }
};

// Reads processes from a procfs mount.
class ProcessTable {
 public:
  explicit ProcessTable(std::string proc_root = "/proc");

  // Parses one /proc/PID/stat line. The command name sits in parentheses
  // and may itself hold spaces and parentheses, so the fields after it are
  // found from the last ')'.
  static absl::StatusOr<ProcessStat> ParseStat(absl::string_view line);

  // NotFound when no process has this PID.
  absl::StatusOr<ProcessStat> Stat(pid_t pid) const;

  // The processes of group `process_group` that have not ended (zombies
  // left out).
  absl::StatusOr<std::vector<pid_t>> LiveMembersOfGroup(pid_t process_group) const;

  // The processes that lead a session of their own (the PID is the
  // session's) and have not ended.
  absl::StatusOr<std::vector<ProcessStat>> LiveSessionLeaders() const;

  // The process's command line, word by word; NotFound when no process has
  // this PID (or it has ended: a zombie's is empty).
  absl::StatusOr<std::vector<std::string>> CommandLine(pid_t pid) const;

 private:
  // The whole of /proc/PID/NAME; NotFound when no process has this PID.
  absl::StatusOr<std::string> ReadProcessFile(pid_t pid, absl::string_view name) const;
  // The processes that have not ended and that `keep` keeps.
  absl::StatusOr<std::vector<ProcessStat>> LiveProcesses(
      const std::function<bool(const ProcessStat&)>& keep) const;

  std::string proc_root_;
};

}  // namespace vernier::scheduler

#endif  // VERNIER_SCHEDULER_LOCAL_PROCESS_TABLE_H_
