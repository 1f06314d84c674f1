#include "http/response_compression.h"

#include <zlib.h>

#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_split.h"

namespace vernier::http {

bool AcceptsGzip(absl::string_view accept_encoding) {
  for (const absl::string_view item : absl::StrSplit(accept_encoding, ',')) {
    const std::vector<absl::string_view> parts = absl::StrSplit(item, ';');
    const absl::string_view coding = absl::StripAsciiWhitespace(parts[0]);
    if (!absl::EqualsIgnoreCase(coding, "gzip") && coding != "*") continue;
    bool refused = false;
    for (size_t i = 1; i < parts.size(); ++i) {
      const absl::string_view parameter = absl::StripAsciiWhitespace(parts[i]);
      if (absl::StartsWithIgnoreCase(parameter, "q=")) {
        const absl::string_view q = parameter.substr(2);
        refused = q.find_first_not_of("0.") == absl::string_view::npos;
      }
    }
    if (!refused) return true;
  }
  return false;
}

std::string Gzip(absl::string_view body) {
  z_stream stream{};
  // 15 window bits, +16: a gzip header and trailer.
  deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  std::string compressed(deflateBound(&stream, static_cast<uLong>(body.size())), '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(body.data()));
  stream.avail_in = static_cast<uInt>(body.size());
  stream.next_out = reinterpret_cast<Bytef*>(compressed.data());
  stream.avail_out = static_cast<uInt>(compressed.size());
  // deflateBound leaves room for everything: one call finishes.
  deflate(&stream, Z_FINISH);
  compressed.resize(stream.total_out);
  deflateEnd(&stream);
  return compressed;
}

}  // namespace vernier::http
