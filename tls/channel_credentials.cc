#include "tls/channel_credentials.h"

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "tls/pem_checks.h"

namespace vernier::tls {

absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> MakeChannelCredentials(
    const ClientTlsOptions& options, absl::Time now) {
  if (!options.enabled()) return grpc::InsecureChannelCredentials();
  if (options.ca_path.empty()) {
    return absl::InvalidArgumentError(
        "--tls-cert and --tls-key need --tls-ca, the CA that verifies the server's certificate");
  }
  if (options.cert_path.empty() != options.key_path.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        options.cert_path.empty() ? "--tls-key" : "--tls-cert", " needs ",
        options.cert_path.empty() ? "--tls-cert" : "--tls-key", " (mutual TLS takes both)"));
  }
  grpc::SslCredentialsOptions ssl;
  VERNIER_ASSIGN_OR_RETURN(const PemFile ca, ReadPemFile("--tls-ca", options.ca_path));
  VERNIER_RETURN_IF_ERROR(CheckCaBundle(ca, now));
  ssl.pem_root_certs = ca.text;
  if (!options.cert_path.empty()) {
    VERNIER_ASSIGN_OR_RETURN(const PemFile certificate,
                             ReadPemFile("--tls-cert", options.cert_path));
    VERNIER_ASSIGN_OR_RETURN(const PemFile key, ReadPemFile("--tls-key", options.key_path));
    VERNIER_RETURN_IF_ERROR(CheckCertificates(certificate, now));
    VERNIER_RETURN_IF_ERROR(CheckPrivateKey(key, certificate));
    ssl.pem_cert_chain = certificate.text;
    ssl.pem_private_key = key.text;
  }
  return grpc::SslCredentials(ssl);
}

void ApplyServerName(const ClientTlsOptions& options, grpc::ChannelArguments& arguments) {
  if (options.enabled() && !options.server_name.empty()) {
    arguments.SetSslTargetNameOverride(options.server_name);
  }
}

}  // namespace vernier::tls
