#ifndef VERNIER_HTTP_RESPONSE_COMPRESSION_H_
#define VERNIER_HTTP_RESPONSE_COMPRESSION_H_

#include <string>

#include "absl/strings/string_view.h"

namespace vernier::http {

// The server compresses its JSON answers itself, with gzip: cpp-httplib
// 0.11 picks Brotli whenever a browser accepts it, at Brotli's highest
// quality, which takes about a second for the dashboard's 500 kB summary
// (gzip: 0.1 s).

// Whether an Accept-Encoding header value accepts gzip ("gzip" or "*"
// listed, without q=0).
bool AcceptsGzip(absl::string_view accept_encoding);

// `body` as one gzip member (zlib's default level).
std::string Gzip(absl::string_view body);

}  // namespace vernier::http

#endif  // VERNIER_HTTP_RESPONSE_COMPRESSION_H_
