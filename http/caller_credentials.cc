#include "http/caller_credentials.h"

#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace vernier::http {

std::string AuthorizationFor(absl::string_view authorization_header,
                             absl::string_view cookie_header) {
  const absl::string_view given = absl::StripAsciiWhitespace(authorization_header);
  if (!given.empty()) return std::string(given);
  for (absl::string_view cookie : absl::StrSplit(cookie_header, ';')) {
    cookie = absl::StripAsciiWhitespace(cookie);
    if (!absl::ConsumePrefix(&cookie, kSessionCookie) || !absl::ConsumePrefix(&cookie, "=")) {
      continue;
    }
    if (!cookie.empty()) return absl::StrCat("Bearer ", cookie);
  }
  return "";
}

}  // namespace vernier::http
