#include "http/http_status_mapping.h"

#include <google/protobuf/util/json_util.h>
#include <gtest/gtest.h>

#include "vernier/v1/http.pb.h"

namespace vernier::http {
namespace {

TEST(HttpStatusMappingTest, EachGrpcCodeHasGooglesHttpStatus) {
  const std::pair<absl::StatusCode, int> expected[] = {
      {absl::StatusCode::kOk, 200},
      {absl::StatusCode::kCancelled, 499},
      {absl::StatusCode::kUnknown, 500},
      {absl::StatusCode::kInvalidArgument, 400},
      {absl::StatusCode::kDeadlineExceeded, 504},
      {absl::StatusCode::kNotFound, 404},
      {absl::StatusCode::kAlreadyExists, 409},
      {absl::StatusCode::kPermissionDenied, 403},
      {absl::StatusCode::kResourceExhausted, 429},
      {absl::StatusCode::kFailedPrecondition, 400},
      {absl::StatusCode::kAborted, 409},
      {absl::StatusCode::kOutOfRange, 400},
      {absl::StatusCode::kUnimplemented, 501},
      {absl::StatusCode::kInternal, 500},
      {absl::StatusCode::kUnavailable, 503},
      {absl::StatusCode::kDataLoss, 500},
      {absl::StatusCode::kUnauthenticated, 401},
  };
  for (const auto& [code, status] : expected) {
    EXPECT_EQ(HttpStatusFor(code), status) << absl::StatusCodeToString(code);
  }
  EXPECT_EQ(HttpStatusFor(static_cast<absl::StatusCode>(99)), 500);
}

TEST(HttpStatusMappingTest, TheErrorBodyIsGooglesShape) {
  const std::string body = ErrorBody(absl::NotFoundError("job \"x\" not found"));
  v1::HttpErrorResponse parsed;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(body, &parsed).ok()) << body;
  EXPECT_EQ(parsed.error().code(), 404);
  EXPECT_EQ(parsed.error().status(), "NOT_FOUND");
  EXPECT_EQ(parsed.error().message(), "job \"x\" not found");
  EXPECT_EQ(body, R"({"error":{"code":404,"message":"job \"x\" not found","status":"NOT_FOUND"}})");
}

TEST(HttpStatusMappingTest, AStatusCanCarryItsOwnHttpStatus) {
  const absl::Status too_large =
      WithHttpStatus(absl::ResourceExhaustedError("the request body is too large"), 413);
  EXPECT_EQ(too_large.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(HttpStatusOf(too_large), 413);
  EXPECT_EQ(ErrorBody(too_large),
            R"({"error":{"code":413,"message":"the request body is too large",)"
            R"("status":"RESOURCE_EXHAUSTED"}})");
  // Without one, the code's.
  EXPECT_EQ(HttpStatusOf(absl::ResourceExhaustedError("disk full")), 429);
}

}  // namespace
}  // namespace vernier::http
