#include "http/caller_credentials.h"

#include <gtest/gtest.h>

#include <string>

#include "absl/time/time.h"
#include "http/dashboard_sessions.h"

namespace vernier::http {
namespace {

constexpr char kCookie[] = "vernier_session_7731";

TEST(CallerCredentialsTest, TheCookieIsNamedAfterThePort) {
  EXPECT_EQ(SessionCookieName(7731), "vernier_session_7731");
  EXPECT_EQ(SessionCookieName(8080), "vernier_session_8080");
}

TEST(CallerCredentialsTest, TheAuthorizationHeaderGoesAsGiven) {
  DashboardSessions sessions(absl::Hours(1), 10);
  const std::string id = *sessions.Open("Bearer def");
  EXPECT_EQ(AuthorizationFor("Bearer abc", std::string(kCookie) + "=" + id, kCookie, sessions),
            "Bearer abc");
  EXPECT_EQ(AuthorizationFor("  Bearer abc ", "", kCookie, sessions), "Bearer abc");
}

TEST(CallerCredentialsTest, TheCookieNamesASessionWhoseCredentialsGoOn) {
  DashboardSessions sessions(absl::Hours(1), 10);
  const std::string id = *sessions.Open("Bearer def");
  EXPECT_EQ(AuthorizationFor("", std::string(kCookie) + "=" + id, kCookie, sessions), "Bearer def");
  EXPECT_EQ(AuthorizationFor("", "theme=dark; " + std::string(kCookie) + "=" + id + "; x=1",
                             kCookie, sessions),
            "Bearer def");
  // Another port's cookie is not this server's.
  EXPECT_EQ(AuthorizationFor("", "vernier_session_7732=" + id, kCookie, sessions), "");
}

TEST(CallerCredentialsTest, ACookieHoldingATokenIsNotTheToken) {
  DashboardSessions sessions(absl::Hours(1), 10);
  EXPECT_EQ(AuthorizationFor("", std::string(kCookie) + "=vnr_abc", kCookie, sessions), "");
  EXPECT_EQ(AuthorizationFor("", "vernier_session=vnr_abc", kCookie, sessions), "");
}

TEST(CallerCredentialsTest, NoCredentialsIsEmpty) {
  DashboardSessions sessions(absl::Hours(1), 10);
  EXPECT_EQ(AuthorizationFor("", "", kCookie, sessions), "");
  EXPECT_EQ(AuthorizationFor("", std::string(kCookie) + "=", kCookie, sessions), "");
  EXPECT_EQ(SessionIdFrom(std::string(kCookie) + "x=abc; other=1", kCookie), "");
  EXPECT_EQ(SessionIdFrom("a=1; " + std::string(kCookie) + "=abc", kCookie), "abc");
}

}  // namespace
}  // namespace vernier::http
