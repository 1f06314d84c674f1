#include "tuner/storage/postgres/postgres_url.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "text/absl_view.h"

namespace vernier::storage {
namespace {

// Where the authority (USER:PASSWORD@HOST:PORT) starts and ends.
struct Authority {
  size_t begin;
  size_t end;
};

Authority FindAuthority(std::string_view url) {
  const size_t scheme_end = url.find("://");
  const size_t begin = scheme_end == std::string_view::npos ? 0 : scheme_end + 3;
  size_t end = url.find_first_of("/?", begin);
  if (end == std::string_view::npos) end = url.size();
  return {begin, end};
}

}  // namespace

std::string RedactPostgresUrl(std::string_view url) {
  std::string redacted(url);
  const Authority authority = FindAuthority(redacted);
  const size_t at = redacted.rfind('@', authority.end - 1);
  if (at != std::string::npos && at >= authority.begin) {
    const size_t colon = redacted.find(':', authority.begin);
    if (colon != std::string::npos && colon < at) {
      redacted.replace(colon + 1, at - colon - 1, "***");
    }
  }
  // password=... in a URI's query or a key=value connection string.
  for (size_t key = redacted.find("password="); key != std::string::npos;
       key = redacted.find("password=", key + 1)) {
    if (key > 0 && redacted[key - 1] != '?' && redacted[key - 1] != '&' &&
        redacted[key - 1] != ' ') {
      continue;
    }
    const size_t value = key + 9;
    size_t value_end = redacted.find_first_of("& ", value);
    if (value_end == std::string::npos) value_end = redacted.size();
    redacted.replace(value, value_end - value, "***");
  }
  return redacted;
}

std::string WithUrlParameter(std::string_view url, std::string_view name, std::string_view value) {
  const size_t query = url.find('?');
  if (query != std::string_view::npos) {
    const std::string_view parameters = url.substr(query);
    const std::string key = absl::StrCat(text::AbslView(name), "=");
    if (absl::StrContains(text::AbslView(parameters), absl::StrCat("?", key)) ||
        absl::StrContains(text::AbslView(parameters), absl::StrCat("&", key))) {
      return std::string(url);
    }
  }
  return absl::StrCat(text::AbslView(url), query == std::string_view::npos ? "?" : "&",
                      text::AbslView(name), "=", text::AbslView(value));
}

std::string WithDatabase(std::string_view url, std::string_view database) {
  const Authority authority = FindAuthority(url);
  size_t rest = url.find('?', authority.end);
  if (rest == std::string_view::npos) rest = url.size();
  return absl::StrCat(text::AbslView(url.substr(0, authority.end)), "/", text::AbslView(database),
                      text::AbslView(url.substr(rest)));
}

}  // namespace vernier::storage
