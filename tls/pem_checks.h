#ifndef VERNIER_TLS_PEM_CHECKS_H_
#define VERNIER_TLS_PEM_CHECKS_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace vernier::tls {

// A PEM file as read, with the flag that named it, for messages such as
// "--tls-cert /etc/vernier/server.pem: no PEM certificate in it".
struct PemFile {
  std::string flag;
  std::string path;
  std::string text;
};

// The checks a server and its clients make of their PEM files at start, so
// that a wrong file is named then rather than failing every handshake
// later. Each error is INVALID_ARGUMENT and names the flag and the file.

// The file's contents: an error for a missing, unreadable or empty file.
absl::StatusOr<PemFile> ReadPemFile(std::string_view flag, const std::string& path);

// At least one certificate, each one parsed and none expired at `now`: a
// certificate and its chain.
absl::Status CheckCertificates(const PemFile& certificates, absl::Time now);

// At least one certificate, and one not expired at `now`: a CA bundle,
// such as the system's, may hold expired roots beside the one that counts.
absl::Status CheckCaBundle(const PemFile& bundle, absl::Time now);

// A private key that belongs to the first certificate of `certificate`.
absl::Status CheckPrivateKey(const PemFile& key, const PemFile& certificate);

// Whether the first certificate of `certificate` (with the others in that
// file as intermediates) chains to a CA in `ca`, for a server's
// (`client` false) or a client's use, at `now`.
absl::Status CheckIssuedBy(const PemFile& certificate, const PemFile& ca, bool client,
                           absl::Time now);

// Whether the first certificate of `certificate` names `host` (a DNS name
// or an IP address) in its subjectAltName, as a client dialling it checks.
absl::Status CheckNamesHost(const PemFile& certificate, std::string_view host);

}  // namespace vernier::tls

#endif  // VERNIER_TLS_PEM_CHECKS_H_
