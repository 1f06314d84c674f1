#include "tuner/config/environment_rules.h"

#include <algorithm>
#include <map>
#include <string_view>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "text/absl_view.h"

namespace vernier::config {
namespace {

using text::AbslView;

// Set by the launch (tuner/trial_launch_builder.cc) or by the agent.
constexpr std::string_view kVernierVariables[] = {"CLOUD_ML_HP_METRIC_FILE",
                                                  "CLOUD_ML_JOB_ID",
                                                  "CLOUD_ML_TRIAL_ID",
                                                  "CUDA_VISIBLE_DEVICES",
                                                  "LOCAL_RANK",
                                                  "MASTER_ADDR",
                                                  "MASTER_PORT",
                                                  "RANK",
                                                  "TF_CONFIG",
                                                  "VERNIER_AGENT_TOKEN_FILE",
                                                  "WORLD_SIZE"};

}  // namespace

bool IsVernierVariable(std::string_view name) {
  return std::find(std::begin(kVernierVariables), std::end(kVernierVariables), name) !=
         std::end(kVernierVariables);
}

bool IsEnvironmentVariableName(std::string_view name) {
  if (name.empty() || absl::ascii_isdigit(name[0])) return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return absl::ascii_isalnum(c) || c == '_'; });
}

absl::Status CheckVariableName(std::string_view name, std::string_view where) {
  if (!IsEnvironmentVariableName(name)) {
    return absl::InvalidArgumentError(
        absl::StrCat(AbslView(where), ": \"", AbslView(name),
                     "\" is not a variable name (letters, digits and _, not first a digit)"));
  }
  if (IsVernierVariable(name)) {
    return absl::InvalidArgumentError(absl::StrCat(
        AbslView(where), ": ", AbslView(name),
        " is set by Vernier for every replica (docs/jobs.md, \"The trial's environment\"); "
        "remove it"));
  }
  return absl::OkStatus();
}

std::map<std::string, std::string> VariablesOf(const char* const* environment,
                                               const std::function<bool(std::string_view)>& keep) {
  std::map<std::string, std::string> variables;
  for (const char* const* entry = environment; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const size_t equals = text.find('=');
    if (equals == std::string_view::npos || equals == 0) continue;
    const std::string_view name = text.substr(0, equals);
    if (keep(name)) variables[std::string(name)] = std::string(text.substr(equals + 1));
  }
  return variables;
}

absl::Status ValidateEnvironment(const google::protobuf::Map<std::string, std::string>& environment,
                                 std::string_view path, const Locator& locate) {
  if (environment.size() > static_cast<size_t>(kMaxEnvironmentVariables)) {
    return absl::InvalidArgumentError(absl::StrCat(locate(path), ": has ", environment.size(),
                                                   " variables; at most ", kMaxEnvironmentVariables,
                                                   " are allowed"));
  }
  // In name order, so the first error is the same every time.
  const std::map<std::string, std::string> sorted(environment.begin(), environment.end());
  for (const auto& [name, value] : sorted) {
    const std::string where = locate(absl::StrCat(AbslView(path), ".", name));
    VERNIER_RETURN_IF_ERROR(CheckVariableName(name, where));
    if (value.size() > kMaxArgBytes) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": the value is ", value.size(),
                                                     " bytes; at most ", kMaxArgBytes,
                                                     " are allowed"));
    }
    if (value.find('\0') != std::string::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": the value has a NUL byte, which no environment can hold"));
    }
  }
  return absl::OkStatus();
}

}  // namespace vernier::config
