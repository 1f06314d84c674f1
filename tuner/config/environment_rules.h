#ifndef VERNIER_TUNER_CONFIG_ENVIRONMENT_RULES_H_
#define VERNIER_TUNER_CONFIG_ENVIRONMENT_RULES_H_

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "google/protobuf/map.h"
#include "tuner/config/hyperparameter_validator.h"

namespace vernier::config {

// The variables Vernier sets in every replica's environment itself
// (TF_CONFIG, CLOUD_ML_JOB_ID, MASTER_ADDR, ...; docs/jobs.md): a job's
// environment, --env or a role's `env:` may not set them.
bool IsVernierVariable(std::string_view name);

// A shell identifier: letters, digits and underscores, not first a digit.
bool IsEnvironmentVariableName(std::string_view name);

// Whether a job may set the variable `name`: INVALID_ARGUMENT
// "WHERE: ..." when it is not a shell identifier or is a Vernier variable.
// `where` names the flag, file line or field, e.g. "--env".
absl::Status CheckVariableName(std::string_view name, std::string_view where);

// The variables of `environment` (NAME=VALUE strings, as `environ`) whose
// names `keep` accepts; entries without '=' or with an empty name are
// skipped.
std::map<std::string, std::string> VariablesOf(const char* const* environment,
                                               const std::function<bool(std::string_view)>& keep);

// The environment a job or one of its roles adds (Job.environment, a
// ReplicaConfig's env): at most kMaxEnvironmentVariables variables, each
// name a shell identifier that is not a Vernier variable, each value at
// most kMaxArgBytes without a NUL byte. Errors are INVALID_ARGUMENT naming
// "LOCATION: ..." with `path` and the variable, e.g.
// "job.environment.TF_CONFIG: is set by Vernier for every replica ...".
absl::Status ValidateEnvironment(const google::protobuf::Map<std::string, std::string>& environment,
                                 std::string_view path, const Locator& locate);

inline constexpr int kMaxEnvironmentVariables = 1000;

}  // namespace vernier::config

#endif  // VERNIER_TUNER_CONFIG_ENVIRONMENT_RULES_H_
