#ifndef VERNIER_HTTP_HTTP_STATUS_MAPPING_H_
#define VERNIER_HTTP_HTTP_STATUS_MAPPING_H_

#include <string>

#include "absl/status/status.h"

namespace vernier::http {

// The one mapping from a gRPC (absl) code to the HTTP status of the HTTP/JSON
// API's answer, as Google's REST APIs map them (google/rpc/code.proto):
// INVALID_ARGUMENT 400, UNAUTHENTICATED 401, PERMISSION_DENIED 403,
// NOT_FOUND 404, ALREADY_EXISTS and ABORTED 409, FAILED_PRECONDITION 400, ...
int HttpStatusFor(absl::StatusCode code);

// `status` answered with `http_status` instead of its code's (a body over
// the limit: RESOURCE_EXHAUSTED, but 413 rather than 429), carried as a
// payload of the status.
absl::Status WithHttpStatus(absl::Status status, int http_status);
// The HTTP status of `status`: the one WithHttpStatus gave it, else its
// code's (HttpStatusFor).
int HttpStatusOf(const absl::Status& status);

// The error body for `status`: {"error": {"code": HTTP status, "message",
// "status": "NOT_FOUND"}} (vernier.v1.HttpErrorResponse in JSON).
std::string ErrorBody(const absl::Status& status);

}  // namespace vernier::http

#endif  // VERNIER_HTTP_HTTP_STATUS_MAPPING_H_
