#include "http/caller_credentials.h"

#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "http/dashboard_sessions.h"

namespace vernier::http {

std::string SessionCookieName(int port) { return absl::StrCat("vernier_session_", port); }

std::string SessionIdFrom(absl::string_view cookie_header, absl::string_view cookie_name) {
  for (absl::string_view cookie : absl::StrSplit(cookie_header, ';')) {
    cookie = absl::StripAsciiWhitespace(cookie);
    if (!absl::ConsumePrefix(&cookie, cookie_name) || !absl::ConsumePrefix(&cookie, "=")) {
      continue;
    }
    if (!cookie.empty()) return std::string(cookie);
  }
  return "";
}

std::string AuthorizationFor(absl::string_view authorization_header,
                             absl::string_view cookie_header, absl::string_view cookie_name,
                             DashboardSessions& sessions) {
  const absl::string_view given = absl::StripAsciiWhitespace(authorization_header);
  if (!given.empty()) return std::string(given);
  return sessions.Find(SessionIdFrom(cookie_header, cookie_name));
}

}  // namespace vernier::http
