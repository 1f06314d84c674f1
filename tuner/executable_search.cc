#include "tuner/executable_search.h"

#include <sys/stat.h>
#include <unistd.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"

namespace vernier::tuner {

std::string FindExecutable(std::string_view program, std::string_view search_path) {
  const absl::string_view name(program.data(), program.size());
  for (absl::string_view folder :
       absl::StrSplit(absl::string_view(search_path.data(), search_path.size()), ':')) {
    if (folder.empty() || folder[0] != '/') continue;
    const std::string candidate = absl::StrCat(folder, "/", name);
    struct stat info;
    if (stat(candidate.c_str(), &info) == 0 && S_ISREG(info.st_mode) &&
        access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
  }
  return "";
}

}  // namespace vernier::tuner
