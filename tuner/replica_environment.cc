#include "tuner/replica_environment.h"

#include <algorithm>
#include <string_view>

#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "tuner/config/environment_rules.h"

namespace vernier::tuner {
namespace {

constexpr absl::string_view kInheritedNames[] = {
    "HOME", "USER",           "LOGNAME",      "SHELL",        "LANG",         "LANGUAGE",
    "TZ",   "TMPDIR",         "PATH",         "ASAN_OPTIONS", "LSAN_OPTIONS", "UBSAN_OPTIONS",
    "XDG_RUNTIME_DIR"};

bool IsInherited(absl::string_view name) {
  if (absl::StartsWith(name, "LC_")) return true;
  return std::find(std::begin(kInheritedNames), std::end(kInheritedNames), name) !=
         std::end(kInheritedNames);
}

}  // namespace

std::map<std::string, std::string> ReplicaEnvironment(
    const std::map<std::string, std::string>& inherited, const v1::Job& job,
    const v1::ReplicaSpec& spec) {
  std::map<std::string, std::string> environment = inherited;
  for (const auto& [name, value] : job.environment()) environment[name] = value;
  for (const auto& [name, value] : spec.env()) environment[name] = value;
  return environment;
}

std::map<std::string, std::string> InheritedVariables(const char* const* environment) {
  return config::VariablesOf(environment, [](std::string_view name) {
    return IsInherited(absl::string_view(name.data(), name.size()));
  });
}

}  // namespace vernier::tuner
