#include "scheduler/merged_environment.h"

#include <string_view>

#include "absl/strings/str_cat.h"

extern char** environ;

namespace vernier::scheduler {

std::vector<std::string> MergedEnvironment(const std::map<std::string, std::string>& overrides) {
  std::vector<std::string> merged;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    if (!overrides.contains(std::string(text.substr(0, text.find('='))))) {
      merged.emplace_back(text);
    }
  }
  for (const auto& [name, value] : overrides) merged.push_back(absl::StrCat(name, "=", value));
  return merged;
}

std::vector<char*> ExecPointers(std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  pointers.reserve(strings.size() + 1);
  for (std::string& text : strings) pointers.push_back(text.data());
  pointers.push_back(nullptr);
  return pointers;
}

}  // namespace vernier::scheduler
