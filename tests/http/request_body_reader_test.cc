#include "http/request_body_reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "http/http_limits.h"
#include "http/http_status_mapping.h"

namespace vernier::http {
namespace {

using ::testing::HasSubstr;

TEST(RequestBodyReaderTest, KeepsABodyUpToTheLimit) {
  RequestBodyReader reader(10, "");
  EXPECT_TRUE(reader.Append("01234"));
  EXPECT_TRUE(reader.Append("56789"));
  const absl::StatusOr<std::string> body = reader.Finish(true, -1);
  ASSERT_TRUE(body.ok()) << body.status();
  EXPECT_EQ(*body, "0123456789");
}

TEST(RequestBodyReaderTest, StopsTheReadAtTheLimitAndAnswers413NamingIt) {
  RequestBodyReader reader(size_t{4} << 20, "");
  const std::string piece(size_t{1} << 20, 'x');
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(reader.Append(piece)) << i;
  // One byte more stops the read.
  EXPECT_FALSE(reader.Append("x"));
  const absl::StatusOr<std::string> body = reader.Finish(false, 400);
  ASSERT_FALSE(body.ok());
  EXPECT_EQ(body.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(HttpStatusOf(body.status()), 413);
  EXPECT_EQ(body.status().message(),
            "the request body is larger than the limit of 4194304 bytes (4 MiB) "
            "(docs/http-api.md, \"Limits\")");
}

TEST(RequestBodyReaderTest, AnInflatedBodyOverTheLimitNamesItsEncoding) {
  RequestBodyReader reader(8, "gzip");
  EXPECT_FALSE(reader.Append("123456789"));
  const absl::StatusOr<std::string> body = reader.Finish(false, 400);
  ASSERT_FALSE(body.ok());
  EXPECT_EQ(HttpStatusOf(body.status()), 413);
  EXPECT_THAT(body.status().message(),
              HasSubstr("the request body inflates (Content-Encoding: gzip) to more than the "
                        "limit of 8 bytes"));
}

TEST(RequestBodyReaderTest, AContentLengthOverTheLimitIs413Too) {
  // The transport skips such a body unread and says 413.
  RequestBodyReader reader(kMaxRequestBodyBytes, "");
  const absl::StatusOr<std::string> body = reader.Finish(false, 413);
  ASSERT_FALSE(body.ok());
  EXPECT_EQ(HttpStatusOf(body.status()), 413);
  EXPECT_THAT(body.status().message(), HasSubstr("larger than the limit of 4194304 bytes"));
}

TEST(RequestBodyReaderTest, ABrokenStreamIsABadRequest) {
  RequestBodyReader reader(100, "gzip");
  EXPECT_TRUE(reader.Append("abc"));
  const absl::StatusOr<std::string> body = reader.Finish(false, 400);
  ASSERT_FALSE(body.ok());
  EXPECT_EQ(body.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(HttpStatusOf(body.status()), 400);
  EXPECT_THAT(body.status().message(), HasSubstr("Content-Encoding: gzip stream"));
}

}  // namespace
}  // namespace vernier::http
