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

// The most connections served at once, each on a thread of its own
// (ConnectionThreads); more wait for one to close. Slow or long connections
// (half-sent requests, event streams) hold a thread each, so up to this many
// of them leave the others answered.
inline constexpr size_t kMaxConnectionThreads = 1024;

// The listening socket's queue of connections not yet accepted (cpp-httplib
// listens with 5, so that a burst of a few connections made the next one
// wait a second for its SYN to be sent again).
inline constexpr int kListenBacklog = 1024;

// The most event streams (/events, /events/studies/S, /events/jobs/J/logs)
// one caller (one set of credentials) has open at once; one more is a 429.
// A dashboard page holds two or three.
inline constexpr int kMaxStreamsPerCaller = 32;

}  // namespace vernier::http

#endif  // VERNIER_HTTP_HTTP_LIMITS_H_
