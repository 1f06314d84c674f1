#include "trainer-agent/agent_token.h"

#include <cstdlib>

#include "auth/token_file.h"

namespace vernier::agent {

absl::StatusOr<std::string> TakeAgentToken() {
  const char* path = std::getenv(kAgentTokenFileVariable);
  if (path == nullptr || *path == '\0') return std::string();
  const std::string file = path;
  unsetenv(kAgentTokenFileVariable);
  return auth::ReadTokenFile(file);
}

}  // namespace vernier::agent
