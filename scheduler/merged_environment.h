#ifndef VERNIER_SCHEDULER_MERGED_ENVIRONMENT_H_
#define VERNIER_SCHEDULER_MERGED_ENVIRONMENT_H_

#include <map>
#include <string>
#include <vector>

namespace vernier::scheduler {

// This process's environment as NAME=VALUE strings, with `overrides`
// replacing or adding entries: a child's environment.
std::vector<std::string> MergedEnvironment(const std::map<std::string, std::string>& overrides);

// Pointers to the characters of each of `strings`, then a null pointer: an
// argv or envp for exec. Valid while `strings` is unchanged; made before a
// fork, since between fork and exec the child of a process with threads may
// only make async-signal-safe calls.
std::vector<char*> ExecPointers(std::vector<std::string>& strings);

}  // namespace vernier::scheduler

#endif  // VERNIER_SCHEDULER_MERGED_ENVIRONMENT_H_
