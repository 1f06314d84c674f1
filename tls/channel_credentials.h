#ifndef VERNIER_TLS_CHANNEL_CREDENTIALS_H_
#define VERNIER_TLS_CHANNEL_CREDENTIALS_H_

#include <grpcpp/security/credentials.h>
#include <grpcpp/support/channel_arguments.h>

#include <memory>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "tls/tls_options.h"

namespace vernier::tls {

// A client's credentials for dialling a server: insecure when TLS is off;
// else TLS trusting ca_path, with the client certificate and key under
// mutual TLS, read once now. The files are checked first (as
// CheckServerTlsFiles does): INVALID_ARGUMENT naming the flag (--tls-ca,
// --tls-cert, --tls-key) and the file.
absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> MakeChannelCredentials(
    const ClientTlsOptions& options, absl::Time now);

// Makes a channel built with `arguments` check server_name in the server's
// certificate rather than the host it dials; nothing when it is empty.
void ApplyServerName(const ClientTlsOptions& options, grpc::ChannelArguments& arguments);

}  // namespace vernier::tls

#endif  // VERNIER_TLS_CHANNEL_CREDENTIALS_H_
