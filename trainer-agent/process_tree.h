#ifndef VERNIER_TRAINER_AGENT_PROCESS_TREE_H_
#define VERNIER_TRAINER_AGENT_PROCESS_TREE_H_

#include <sys/types.h>

#include <optional>
#include <string_view>
#include <vector>

namespace vernier::agent {

// One line of the process table, from /proc/PID/stat.
struct ProcessEntry {
  pid_t pid = 0;
  pid_t parent = 0;
  // 'R', 'S', 'D', 'T', 'Z' (exited, not reaped), ...
  char state = '?';
  pid_t process_group = 0;

  bool alive() const { return state != 'Z' && state != 'X'; }
};

// The processes below one process, found by their parent links, whatever
// process group or session they moved to: a trainer's torchrun workers call
// setsid(), so signalling the trainer's group misses them, but they stay its
// descendants (and, once orphaned, the descendants of a child subreaper such
// as the agent).
class ProcessTree {
 public:
  // Every process now in /proc. Processes that vanish during the scan are
  // left out.
  static std::vector<ProcessEntry> Scan();
  // "1234 (python3) S 1200 1234 ..." -> {1234, 1200, 'S', 1234}; the command
  // name may hold spaces and parentheses.
  static std::optional<ProcessEntry> ParseStat(std::string_view stat);
  // The descendants of `root` in `table`, parents before their children;
  // `root` itself is not included.
  static std::vector<ProcessEntry> Descendants(pid_t root, const std::vector<ProcessEntry>& table);
};

}  // namespace vernier::agent

#endif  // VERNIER_TRAINER_AGENT_PROCESS_TREE_H_
