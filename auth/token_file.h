#ifndef VERNIER_AUTH_TOKEN_FILE_H_
#define VERNIER_AUTH_TOKEN_FILE_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace vernier::auth {

// The token in a token file (surrounding whitespace removed). NOT_FOUND when
// there is no such file; PERMISSION_DENIED when group or others may read or
// write it (it must be mode 0600 or stricter: `chmod 600 FILE`);
// INVALID_ARGUMENT when it is empty. Every message names the file.
absl::StatusOr<std::string> ReadTokenFile(const std::string& path);
// Writes `token` to `path` with mode 0600 (creating its directory, mode
// 0700), replacing the file whole (a rename), so no reader sees half of it.
// The temporary file beside it is always a new one: a link planted at its
// name is removed, never written through.
absl::Status WriteTokenFile(const std::string& path, absl::string_view token);

// Where clients look for tokens by server address: $VERNIER_CONFIG_DIR, else
// $XDG_CONFIG_HOME/vernier, else $HOME/.config/vernier.
std::string ClientConfigDir();
// The file, under ClientConfigDir()/tokens/, holding the token for the
// server at `address` (HOST:PORT): "loopback-PORT" for any loopback host
// (localhost, 127.0.0.1 and ::1 reach the same server), else HOST-PORT with
// every character outside [A-Za-z0-9._-] replaced by '_'.
std::string TokenFileNameForAddress(absl::string_view address);
std::string TokenFileForAddress(absl::string_view address);

}  // namespace vernier::auth

#endif  // VERNIER_AUTH_TOKEN_FILE_H_
