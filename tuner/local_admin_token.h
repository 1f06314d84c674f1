#ifndef VERNIER_TUNER_LOCAL_ADMIN_TOKEN_H_
#define VERNIER_TUNER_LOCAL_ADMIN_TOKEN_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "tuner/storage/storage.h"

namespace vernier::tuner {

// The name of the user running this process (its passwd entry, else $USER).
std::string LocalUserName();

// Zero setup for one person: the admin token of the user running the
// server, kept in DATA_DIR/admin.token (mode 0600). The one there is used
// while the store knows it and it is neither revoked nor expired; otherwise
// a new one is issued and written there.
absl::StatusOr<std::string> EnsureLocalAdminToken(storage::Storage& store,
                                                  const std::string& data_dir, absl::Time now);

// The client token files (auth::TokenFileForAddress) through which the CLI
// and the Python client of this user find `token` for the server listening
// on `host`:`port`: the address itself or, for a wildcard host (0.0.0.0,
// ::), every address a client on this machine may dial: loopback, the host
// name and each interface's address.
std::vector<std::string> ClientTokenFilesFor(const std::string& host, int port);

}  // namespace vernier::tuner

#endif  // VERNIER_TUNER_LOCAL_ADMIN_TOKEN_H_
