#include "http/query_string.h"

#include <utility>

#include "absl/strings/ascii.h"

namespace vernier::http {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  return absl::ascii_tolower(static_cast<unsigned char>(c)) - 'a' + 10;
}

}  // namespace

std::multimap<std::string, std::string> QueryString::Parse(std::string_view query) {
  std::multimap<std::string, std::string> params;
  while (!query.empty()) {
    const size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    query.remove_prefix(amp == std::string_view::npos ? query.size() : amp + 1);
    if (pair.empty()) continue;
    const size_t equals = pair.find('=');
    std::string name = Decode(pair.substr(0, equals));
    if (name.empty()) continue;
    params.emplace(std::move(name),
                   equals == std::string_view::npos ? "" : Decode(pair.substr(equals + 1)));
  }
  return params;
}

std::string QueryString::Decode(std::string_view text) {
  std::string decoded;
  decoded.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      decoded.push_back(' ');
    } else if (text[i] == '%' && i + 2 < text.size() &&
               absl::ascii_isxdigit(static_cast<unsigned char>(text[i + 1])) &&
               absl::ascii_isxdigit(static_cast<unsigned char>(text[i + 2]))) {
      decoded.push_back(static_cast<char>(HexValue(text[i + 1]) * 16 + HexValue(text[i + 2])));
      i += 2;
    } else {
      decoded.push_back(text[i]);
    }
  }
  return decoded;
}

}  // namespace vernier::http
