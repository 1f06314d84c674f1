#ifndef VERNIER_TLS_SERVER_CREDENTIALS_H_
#define VERNIER_TLS_SERVER_CREDENTIALS_H_

#include <grpcpp/security/server_credentials.h>

#include <memory>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "tls/tls_options.h"

namespace vernier::tls {

// Checks every file of `options` as the server and its agents will use
// them, at `now`: each readable PEM, certificates unexpired, each key the
// one of its certificate, the server's certificate accepted by ca_path and
// naming agent_server_name, the agents' certificate accepted by
// client_ca_path. INVALID_ARGUMENT naming the flag and the file otherwise.
// OK when TLS is off.
absl::Status CheckServerTlsFiles(const ServerTlsOptions& options, absl::Time now);

// The server's credentials: insecure when TLS is off; else, after
// CheckServerTlsFiles, TLS whose key and certificate (and client CA) gRPC
// re-reads every reload_interval (FileWatcherCertificateProvider), with
// client certificates required and verified under mutual TLS.
absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> MakeServerCredentials(
    const ServerTlsOptions& options, absl::Time now);

}  // namespace vernier::tls

#endif  // VERNIER_TLS_SERVER_CREDENTIALS_H_
