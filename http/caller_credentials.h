#ifndef VERNIER_HTTP_CALLER_CREDENTIALS_H_
#define VERNIER_HTTP_CALLER_CREDENTIALS_H_

#include <string>

#include "absl/strings/string_view.h"

namespace vernier::http {

class DashboardSessions;

// The name of the cookie that holds a browser's dashboard session id on the
// HTTP listener at `port`: "vernier_session_PORT". Browsers send a host's
// cookies to every port of it; the name keeps two servers on one host from
// overwriting each other's session (the id is worth nothing to another).
std::string SessionCookieName(int port);

// The value of the cookie `cookie_name` in a Cookie header; empty when it
// has none.
std::string SessionIdFrom(absl::string_view cookie_header, absl::string_view cookie_name);

// The `authorization` metadata an HTTP request's call to the gRPC service
// carries: its `Authorization: Bearer TOKEN` header as given, else the
// credentials of the live dashboard session its cookie `cookie_name` names,
// else empty (no credentials). The gRPC service's own checks decide what it
// may do; this only carries the caller's credentials over.
std::string AuthorizationFor(absl::string_view authorization_header,
                             absl::string_view cookie_header, absl::string_view cookie_name,
                             DashboardSessions& sessions);

}  // namespace vernier::http

#endif  // VERNIER_HTTP_CALLER_CREDENTIALS_H_
