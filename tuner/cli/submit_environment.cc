#include "tuner/cli/submit_environment.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/status_macros.h"
#include "tuner/config/environment_rules.h"

namespace vernier::cli {
namespace {

constexpr absl::string_view kSubmitterNames[] = {"PATH", "PYTHONPATH", "VIRTUAL_ENV",
                                                 "CONDA_PREFIX", "LD_LIBRARY_PATH"};

// One NAME=VALUE into `environment`; `where` starts any error.
absl::Status AddAssignment(absl::string_view text, const std::string& where,
                           std::map<std::string, std::string>& environment) {
  const size_t equals = text.find('=');
  if (equals == absl::string_view::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": expected NAME=VALUE, got \"", text, "\""));
  }
  const std::string name(text.substr(0, equals));
  VERNIER_RETURN_IF_ERROR(config::CheckVariableName(name, where));
  environment[name] = std::string(text.substr(equals + 1));
  return absl::OkStatus();
}

}  // namespace

std::map<std::string, std::string> SubmitterVariables(const char* const* environment) {
  return config::VariablesOf(environment, [](std::string_view name) {
    return std::find(std::begin(kSubmitterNames), std::end(kSubmitterNames),
                     absl::string_view(name.data(), name.size())) != std::end(kSubmitterNames);
  });
}

absl::StatusOr<std::map<std::string, std::string>> ReadEnvFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    return absl::NotFoundError(absl::StrCat("--env-file ", path, ": cannot be read"));
  }
  std::map<std::string, std::string> environment;
  std::string line;
  for (int number = 1; std::getline(file, line); ++number) {
    absl::string_view text(line);
    absl::ConsumeSuffix(&text, "\r");
    text = absl::StripLeadingAsciiWhitespace(text);
    if (text.empty() || absl::StartsWith(text, "#")) continue;
    absl::ConsumePrefix(&text, "export ");
    std::string assignment(text);
    const size_t equals = assignment.find('=');
    if (equals != std::string::npos) {
      const absl::string_view value = absl::string_view(assignment).substr(equals + 1);
      if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
          value.back() == value.front()) {
        assignment = absl::StrCat(assignment.substr(0, equals + 1),
                                  value.substr(1, value.size() - 2));
      }
    }
    VERNIER_RETURN_IF_ERROR(AddAssignment(assignment, absl::StrCat(path, ":", number), environment));
  }
  return environment;
}

absl::StatusOr<std::map<std::string, std::string>> JobEnvironment(
    std::map<std::string, std::string> submitter, const std::string& env_file,
    const std::vector<std::string>& assignments) {
  std::map<std::string, std::string> environment = std::move(submitter);
  if (!env_file.empty()) {
    VERNIER_ASSIGN_OR_RETURN(auto from_file, ReadEnvFile(env_file));
    for (auto& [name, value] : from_file) environment[name] = std::move(value);
  }
  for (const std::string& assignment : assignments) {
    VERNIER_RETURN_IF_ERROR(AddAssignment(assignment, "--env", environment));
  }
  return environment;
}

}  // namespace vernier::cli
