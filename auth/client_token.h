#ifndef VERNIER_AUTH_CLIENT_TOKEN_H_
#define VERNIER_AUTH_CLIENT_TOKEN_H_

#include <string>

#include "absl/status/statusor.h"

namespace vernier::auth {

// The token a client sends to the server at `address`, first found of:
// `token` (--token), $VERNIER_TOKEN, `token_file` (--token-file) or
// $VERNIER_TOKEN_FILE, and the file `vernier serve` writes for its own user
// under ClientConfigDir()/tokens/ for that address (token_file.h). "" when
// none is there (the server then answers UNAUTHENTICATED). Errors name the
// file: a token file given but missing, readable by others, or empty.
absl::StatusOr<std::string> ResolveClientToken(const std::string& token,
                                               const std::string& token_file,
                                               const std::string& address);

}  // namespace vernier::auth

#endif  // VERNIER_AUTH_CLIENT_TOKEN_H_
