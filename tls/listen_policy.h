#ifndef VERNIER_TLS_LISTEN_POLICY_H_
#define VERNIER_TLS_LISTEN_POLICY_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "tls/tls_options.h"

namespace vernier::tls {

// Whether `vernier serve --host HOST` is reachable from this machine only:
// localhost, 127.0.0.0/8, ::1 (bracketed or not), ::ffff:127.x, unix:.
// Wildcards (0.0.0.0, ::), other addresses and other names are not.
bool IsLoopbackHost(std::string_view host);

// The same for a client's HOST:PORT ([V6]:PORT, a bare host, unix:PATH).
bool IsLoopbackAddress(std::string_view address);

// Secure by default: a server off loopback must use TLS, unless the one
// running it says --insecure. FAILED_PRECONDITION saying what to add
// otherwise; INVALID_ARGUMENT for --insecure beside TLS.
absl::Status CheckListenSecurity(std::string_view host, const ServerTlsOptions& tls, bool insecure);

// What the server warns about at start: serving off loopback under
// --insecure, or with TLS but without client certificates (anyone who
// reaches the port needs only a token).
std::vector<std::string> ListenWarnings(std::string_view host, const ServerTlsOptions& tls,
                                        bool insecure);

// The name agents check in the server's certificate when none is given:
// the host they dial (--advertise-host, else --host), or localhost when
// that is a wildcard address, which no certificate names.
std::string DefaultAgentServerName(std::string_view dialled_host);

}  // namespace vernier::tls

#endif  // VERNIER_TLS_LISTEN_POLICY_H_
