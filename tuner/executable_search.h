#ifndef VERNIER_TUNER_EXECUTABLE_SEARCH_H_
#define VERNIER_TUNER_EXECUTABLE_SEARCH_H_

#include <string>
#include <string_view>

namespace vernier::tuner {

// The first PROGRAM on `search_path` (a PATH: folders separated by ':')
// that is a regular file this process may execute, as an absolute path;
// relative and empty folders are skipped (the path is handed to other
// processes, which run elsewhere). Empty when there is none.
std::string FindExecutable(std::string_view program, std::string_view search_path);

}  // namespace vernier::tuner

#endif  // VERNIER_TUNER_EXECUTABLE_SEARCH_H_
