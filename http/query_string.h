#ifndef VERNIER_HTTP_QUERY_STRING_H_
#define VERNIER_HTTP_QUERY_STRING_H_

#include <map>
#include <string>
#include <string_view>

namespace vernier::http {

// A URL's query (`a=1&b=x%20y`) as name-value pairs.
class QueryString {
 public:
  // Splits on `&`, then each pair at its first `=` only, so a value keeps
  // any `=` it holds (`pageToken=a=b` is "a=b"; a page token in base64 ends
  // in `=`); percent-escapes and `+` (a space) are decoded in names and
  // values; a pair without `=` is a name with an empty value; empty pairs
  // and pairs with an empty name are skipped.
  static std::multimap<std::string, std::string> Parse(std::string_view query);

  // `text` with %XX escapes and `+` decoded; a `%` not followed by two hex
  // digits stays as it is.
  static std::string Decode(std::string_view text);
};

}  // namespace vernier::http

#endif  // VERNIER_HTTP_QUERY_STRING_H_
