#include "tls/server_credentials.h"

#include <grpcpp/security/tls_certificate_provider.h>
#include <grpcpp/security/tls_credentials_options.h>

#include <algorithm>

#include "common/status_macros.h"
#include "tls/pem_checks.h"

namespace vernier::tls {

absl::Status CheckServerTlsFiles(const ServerTlsOptions& options, absl::Time now) {
  if (!options.enabled()) return absl::OkStatus();
  VERNIER_ASSIGN_OR_RETURN(const PemFile certificate, ReadPemFile("--tls-cert", options.cert_path));
  VERNIER_ASSIGN_OR_RETURN(const PemFile key, ReadPemFile("--tls-key", options.key_path));
  VERNIER_RETURN_IF_ERROR(CheckCertificates(certificate, now));
  VERNIER_RETURN_IF_ERROR(CheckPrivateKey(key, certificate));
  VERNIER_ASSIGN_OR_RETURN(const PemFile ca, ReadPemFile("--tls-ca", options.ca_path));
  VERNIER_RETURN_IF_ERROR(CheckCaBundle(ca, now));
  VERNIER_RETURN_IF_ERROR(CheckIssuedBy(certificate, ca, /*client=*/false, now));
  if (!options.agent_server_name.empty()) {
    VERNIER_RETURN_IF_ERROR(CheckNamesHost(certificate, options.agent_server_name));
  }
  if (!options.mutual()) return absl::OkStatus();
  VERNIER_ASSIGN_OR_RETURN(const PemFile client_ca,
                           ReadPemFile("--tls-client-ca", options.client_ca_path));
  VERNIER_RETURN_IF_ERROR(CheckCaBundle(client_ca, now));
  VERNIER_ASSIGN_OR_RETURN(const PemFile agent_certificate,
                           ReadPemFile("--tls-agent-cert", options.agent_cert_path));
  VERNIER_ASSIGN_OR_RETURN(const PemFile agent_key,
                           ReadPemFile("--tls-agent-key", options.agent_key_path));
  VERNIER_RETURN_IF_ERROR(CheckCertificates(agent_certificate, now));
  VERNIER_RETURN_IF_ERROR(CheckPrivateKey(agent_key, agent_certificate));
  return CheckIssuedBy(agent_certificate, client_ca, /*client=*/true, now);
}

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> MakeServerCredentials(
    const ServerTlsOptions& options, absl::Time now) {
  if (!options.enabled()) return grpc::InsecureServerCredentials();
  VERNIER_RETURN_IF_ERROR(CheckServerTlsFiles(options, now));
  const auto interval = static_cast<unsigned int>(
      std::max<int64_t>(1, absl::ToInt64Seconds(options.reload_interval)));
  auto provider = std::make_shared<grpc::experimental::FileWatcherCertificateProvider>(
      options.key_path, options.cert_path, options.mutual() ? options.client_ca_path : "",
      interval);
  grpc::experimental::TlsServerCredentialsOptions tls(provider);
  tls.watch_identity_key_cert_pairs();
  if (options.mutual()) {
    tls.watch_root_certs();
    tls.set_cert_request_type(GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  } else {
    tls.set_cert_request_type(GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
  }
  return grpc::experimental::TlsServerCredentials(tls);
}

}  // namespace vernier::tls
