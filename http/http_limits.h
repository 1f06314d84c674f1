#ifndef VERNIER_HTTP_HTTP_LIMITS_H_
#define VERNIER_HTTP_HTTP_LIMITS_H_

#include <cstddef>

namespace vernier::http {

// The HTTP listener's limits, in one place (docs/http-api.md, "Limits"),
// applied before a request is authenticated.

// The largest request body read, as sent and, with a Content-Encoding
// (gzip, deflate, br), once inflated: gRPC's own limit on one message (the
// body becomes one call over the in-process channel), so no call that fits
// is refused. A larger one is a 413 naming this limit; its reading stops
// here, so it never holds more memory than this.
inline constexpr size_t kMaxRequestBodyBytes = size_t{4} << 20;

}  // namespace vernier::http

#endif  // VERNIER_HTTP_HTTP_LIMITS_H_
