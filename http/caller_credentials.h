#ifndef VERNIER_HTTP_CALLER_CREDENTIALS_H_
#define VERNIER_HTTP_CALLER_CREDENTIALS_H_

#include <string>
#include "absl/strings/string_view.h"

namespace vernier::http {

// The name of the cookie that holds a browser's session token.
inline constexpr absl::string_view kSessionCookie = "vernier_session";

// The `authorization` metadata an HTTP request's call to the gRPC service
// carries: its `Authorization: Bearer TOKEN` header as given, else
// "Bearer TOKEN" from its vernier_session cookie, else empty (no
// credentials). The gRPC service's own checks decide what it may do; this
// only carries the caller's credentials over.
std::string AuthorizationFor(absl::string_view authorization_header,
                             absl::string_view cookie_header);

}  // namespace vernier::http

#endif  // VERNIER_HTTP_CALLER_CREDENTIALS_H_
