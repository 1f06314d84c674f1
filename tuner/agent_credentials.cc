#include "tuner/agent_credentials.h"

#include <unistd.h>

#include "absl/strings/str_cat.h"
#include "auth/api_token_codec.h"
#include "auth/token_file.h"
#include "common/status_macros.h"
#include "spdlog/spdlog.h"

namespace vernier::tuner {

std::string AgentCredentials::IdOf(const v1::AgentScope& scope) {
  return absl::StrCat("agent:", scope.study_name(), ":", scope.trial_id(), ":", scope.attempt());
}

std::string AgentCredentials::FileOf(const v1::AgentScope& scope, const std::string& directory) {
  return absl::StrCat(directory, "/.agent-token-", scope.attempt());
}

absl::StatusOr<std::string> AgentCredentials::Issue(const v1::AgentScope& scope,
                                                    const std::string& directory) {
  VERNIER_ASSIGN_OR_RETURN(const auth::TokenSecret secret, auth::RandomTokenSecret());
  const std::string token = auth::FormatToken(secret);
  v1::ApiToken info;
  info.set_id(IdOf(scope));
  info.set_user(absl::StrCat("agent of job ", scope.job_id(), " trial ", scope.trial_id()));
  info.set_role(v1::AGENT);
  info.set_created_by("vernier serve");
  *info.mutable_create_time() = ToTimestamp(clock_());
  *info.mutable_agent_scope() = scope;
  // A relaunch of the same attempt (after a restart) replaces its credential.
  if (absl::Status removed = store_.DeleteApiToken(info.id());
      !removed.ok() && !absl::IsNotFound(removed)) {
    return removed;
  }
  VERNIER_RETURN_IF_ERROR(store_.CreateApiToken(auth::HashToken(token), info));
  const std::string path = FileOf(scope, directory);
  VERNIER_RETURN_IF_ERROR(auth::WriteTokenFile(path, token));
  return path;
}

void AgentCredentials::Revoke(const v1::AgentScope& scope, const std::string& directory) {
  if (absl::Status removed = store_.DeleteApiToken(IdOf(scope));
      !removed.ok() && !absl::IsNotFound(removed)) {
    spdlog::warn("job={} trial={} cannot delete the credential of attempt {}: {}", scope.job_id(),
                 scope.trial_id(), scope.attempt(), removed.ToString());
  }
  if (!directory.empty()) unlink(FileOf(scope, directory).c_str());
}

}  // namespace vernier::tuner
