#ifndef VERNIER_TUNER_CLI_SUBMIT_ENVIRONMENT_H_
#define VERNIER_TUNER_CLI_SUBMIT_ENVIRONMENT_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace vernier::cli {

// What of the submitter's environment (NAME=VALUE strings, as `environ`) a
// job takes by default, so a trial finds the same python3, packages and
// libraries as the shell that submitted it: PATH, PYTHONPATH, VIRTUAL_ENV,
// CONDA_PREFIX and LD_LIBRARY_PATH, those that are set.
std::map<std::string, std::string> SubmitterVariables(const char* const* environment);

// An --env-file: one NAME=VALUE a line (a leading `export ` is allowed, and
// a value wholly in single or double quotes loses them); blank lines and
// lines starting with # are skipped. Errors name "FILE:LINE: ...".
absl::StatusOr<std::map<std::string, std::string>> ReadEnvFile(const std::string& path);

// The job's environment: `submitter` (SubmitterVariables), then the
// --env-file's variables, then each --env NAME=VALUE, later ones winning.
// Errors name the flag or the file's line and what is wrong: not NAME=VALUE,
// a name that is not a variable name, or one Vernier sets itself.
absl::StatusOr<std::map<std::string, std::string>> JobEnvironment(
    std::map<std::string, std::string> submitter, const std::string& env_file,
    const std::vector<std::string>& assignments);

}  // namespace vernier::cli

#endif  // VERNIER_TUNER_CLI_SUBMIT_ENVIRONMENT_H_
