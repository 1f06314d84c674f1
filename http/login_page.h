#ifndef VERNIER_HTTP_LOGIN_PAGE_H_
#define VERNIER_HTTP_LOGIN_PAGE_H_

#include <string>

#include "absl/strings/string_view.h"

namespace vernier::http {

// The dashboard's login page: a form that POSTs an API token to /login
// (no script, so the page's Content-Security-Policy holds), with `error`,
// HTML-escaped, above it when a login was refused.
class LoginPage {
 public:
  static std::string Html(absl::string_view error);
  // `text` with &, <, >, " and ' as HTML entities.
  static std::string Escape(absl::string_view text);
};

}  // namespace vernier::http

#endif  // VERNIER_HTTP_LOGIN_PAGE_H_
