#include "auth/client_token.h"

#include <cstdlib>

#include "absl/status/status.h"
#include "auth/token_file.h"

namespace vernier::auth {
namespace {

std::string Environment(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

}  // namespace

absl::StatusOr<std::string> ResolveClientToken(const std::string& token,
                                               const std::string& token_file,
                                               const std::string& address) {
  if (!token.empty()) return token;
  if (std::string from_environment = Environment("VERNIER_TOKEN"); !from_environment.empty()) {
    return from_environment;
  }
  std::string file = token_file.empty() ? Environment("VERNIER_TOKEN_FILE") : token_file;
  if (!file.empty()) return ReadTokenFile(file);
  absl::StatusOr<std::string> found = ReadTokenFile(TokenFileForAddress(address));
  if (absl::IsNotFound(found.status())) return std::string();
  return found;
}

}  // namespace vernier::auth
