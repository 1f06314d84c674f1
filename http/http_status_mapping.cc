#include "http/http_status_mapping.h"

#include <google/protobuf/util/json_util.h>

#include <string>

#include "absl/strings/cord.h"
#include "absl/strings/numbers.h"
#include "vernier/v1/http.pb.h"

namespace vernier::http {
namespace {

// The payload WithHttpStatus sets.
constexpr char kHttpStatusPayload[] = "vernier.dev/http-status";

}  // namespace

int HttpStatusFor(absl::StatusCode code) {
  switch (code) {
    case absl::StatusCode::kOk:
      return 200;
    case absl::StatusCode::kCancelled:
      return 499;
    case absl::StatusCode::kUnknown:
      return 500;
    case absl::StatusCode::kInvalidArgument:
      return 400;
    case absl::StatusCode::kDeadlineExceeded:
      return 504;
    case absl::StatusCode::kNotFound:
      return 404;
    case absl::StatusCode::kAlreadyExists:
      return 409;
    case absl::StatusCode::kPermissionDenied:
      return 403;
    case absl::StatusCode::kResourceExhausted:
      return 429;
    case absl::StatusCode::kFailedPrecondition:
      return 400;
    case absl::StatusCode::kAborted:
      return 409;
    case absl::StatusCode::kOutOfRange:
      return 400;
    case absl::StatusCode::kUnimplemented:
      return 501;
    case absl::StatusCode::kInternal:
      return 500;
    case absl::StatusCode::kUnavailable:
      return 503;
    case absl::StatusCode::kDataLoss:
      return 500;
    case absl::StatusCode::kUnauthenticated:
      return 401;
    default:
      return 500;
  }
}

absl::Status WithHttpStatus(absl::Status status, int http_status) {
  status.SetPayload(kHttpStatusPayload, absl::Cord(std::to_string(http_status)));
  return status;
}

int HttpStatusOf(const absl::Status& status) {
  const auto payload = status.GetPayload(kHttpStatusPayload);
  int http_status = 0;
  if (payload.has_value() && absl::SimpleAtoi(std::string(*payload), &http_status)) {
    return http_status;
  }
  return HttpStatusFor(status.code());
}

std::string ErrorBody(const absl::Status& status) {
  v1::HttpErrorResponse response;
  response.mutable_error()->set_code(HttpStatusOf(status));
  response.mutable_error()->set_message(std::string(status.message()));
  response.mutable_error()->set_status(absl::StatusCodeToString(status.code()));
  std::string body;
  google::protobuf::util::JsonPrintOptions options;
  options.always_print_primitive_fields = true;
  // Serialising a message with no Any fields cannot fail.
  (void)google::protobuf::util::MessageToJsonString(response, &body, options);
  return body;
}

}  // namespace vernier::http
