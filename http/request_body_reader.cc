#include "http/request_body_reader.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "http/http_status_mapping.h"

namespace vernier::http {
namespace {

// "4194304 bytes (4 MiB)".
std::string Bytes(size_t bytes) {
  std::string text = absl::StrCat(bytes, " bytes");
  if (bytes >= (size_t{1} << 20) && bytes % (size_t{1} << 20) == 0) {
    absl::StrAppend(&text, " (", bytes >> 20, " MiB)");
  }
  return text;
}

}  // namespace

RequestBodyReader::RequestBodyReader(size_t limit, std::string content_encoding)
    : limit_(limit), content_encoding_(std::move(content_encoding)) {}

bool RequestBodyReader::Append(std::string_view piece) {
  if (piece.size() > limit_ - body_.size()) {
    too_large_ = true;
    return false;
  }
  body_.append(piece);
  return true;
}

absl::StatusOr<std::string> RequestBodyReader::Finish(bool read_ok, int transport_status) {
  constexpr int kPayloadTooLarge = 413;
  if (too_large_ || (!read_ok && transport_status == kPayloadTooLarge)) {
    const std::string what =
        too_large_ && !content_encoding_.empty()
            ? absl::StrCat("the request body inflates (Content-Encoding: ", content_encoding_,
                           ") to more than")
            : std::string("the request body is larger than");
    return WithHttpStatus(
        absl::ResourceExhaustedError(
            absl::StrCat(what, " the limit of ", Bytes(limit_), " (docs/http-api.md, \"Limits\")")),
        kPayloadTooLarge);
  }
  if (!read_ok) {
    return absl::InvalidArgumentError(
        absl::StrCat("the request body could not be read: a broken chunked transfer encoding",
                     content_encoding_.empty()
                         ? ""
                         : absl::StrCat(" or Content-Encoding: ", content_encoding_, " stream")));
  }
  return std::move(body_);
}

}  // namespace vernier::http
