#include "http/caller_credentials.h"

#include <gtest/gtest.h>

namespace vernier::http {
namespace {

TEST(CallerCredentialsTest, TheAuthorizationHeaderGoesAsGiven) {
  EXPECT_EQ(AuthorizationFor("Bearer abc", "vernier_session=def"), "Bearer abc");
  EXPECT_EQ(AuthorizationFor("  Bearer abc ", ""), "Bearer abc");
}

TEST(CallerCredentialsTest, TheSessionCookieBecomesABearerToken) {
  EXPECT_EQ(AuthorizationFor("", "vernier_session=def"), "Bearer def");
  EXPECT_EQ(AuthorizationFor("", "theme=dark; vernier_session=def; x=1"), "Bearer def");
}

TEST(CallerCredentialsTest, NoCredentialsIsEmpty) {
  EXPECT_EQ(AuthorizationFor("", ""), "");
  EXPECT_EQ(AuthorizationFor("", "vernier_session="), "");
  EXPECT_EQ(AuthorizationFor("", "vernier_sessionx=abc; other=1"), "");
}

}  // namespace
}  // namespace vernier::http
