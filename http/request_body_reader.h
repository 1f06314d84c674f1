#ifndef VERNIER_HTTP_REQUEST_BODY_READER_H_
#define VERNIER_HTTP_REQUEST_BODY_READER_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace vernier::http {

// One HTTP request's body, taken piece by piece from the transport (inflated
// already when it has a Content-Encoding) and kept up to a limit
// (kMaxRequestBodyBytes): a larger body, as sent or once inflated, stops the
// read at the limit instead of filling memory, and is a 413 naming the limit.
class RequestBodyReader {
 public:
  // `limit`: the most bytes kept; `content_encoding`: the request's
  // Content-Encoding header ("" when none), named in the error.
  RequestBodyReader(size_t limit, std::string content_encoding);

  // Takes the next piece; false, which stops the read, when the body would
  // pass the limit.
  bool Append(std::string_view piece);

  // The body once the transport's read ended: `read_ok` is what the read
  // answered, `transport_status` the HTTP status the transport chose when it
  // failed (413 when the Content-Length alone passes the limit, which it then
  // skips unread). RESOURCE_EXHAUSTED answered with 413 (WithHttpStatus)
  // naming the limit when the body passed it; INVALID_ARGUMENT when the
  // transport could not read it (a broken chunked or compressed stream).
  absl::StatusOr<std::string> Finish(bool read_ok, int transport_status);

 private:
  size_t limit_;
  std::string content_encoding_;
  std::string body_;
  bool too_large_ = false;
};

}  // namespace vernier::http

#endif  // VERNIER_HTTP_REQUEST_BODY_READER_H_
