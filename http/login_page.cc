#include "http/login_page.h"

#include "absl/strings/str_cat.h"

namespace vernier::http {

std::string LoginPage::Escape(absl::string_view text) {
  std::string escaped;
  escaped.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&':
        escaped += "&amp;";
        break;
      case '<':
        escaped += "&lt;";
        break;
      case '>':
        escaped += "&gt;";
        break;
      case '"':
        escaped += "&quot;";
        break;
      case '\'':
        escaped += "&#39;";
        break;
      default:
        escaped += c;
    }
  }
  return escaped;
}

std::string LoginPage::Html(absl::string_view error) {
  return absl::StrCat(
      "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<title>Vernier: log in</title>\n<link rel=\"icon\" href=\"data:,\">\n"
      "<link rel=\"stylesheet\" href=\"/assets/app.css\">\n</head>\n<body>\n"
      "<header><a href=\"/\" class=\"brand\">Vernier</a></header>\n<main>\n<h2>Log in</h2>\n",
      error.empty()
          ? ""
          : absl::StrCat("<p id=\"login-error\" class=\"error\">", Escape(error), "</p>\n"),
      "<form method=\"post\" action=\"/login\">\n"
      "<label>API token <input type=\"password\" name=\"token\" autocomplete=\"off\" "
      "required></label>\n<button type=\"submit\">Log in</button>\n</form>\n"
      "<p>A token comes from <code>vernier tokens create</code> (an admin makes one), or from "
      "<code>DATA_DIR/admin.token</code> for the server's own user.</p>\n"
      "</main>\n</body>\n</html>\n");
}

}  // namespace vernier::http
