#ifndef VERNIER_TEXT_UTF8_TEXT_H_
#define VERNIER_TEXT_UTF8_TEXT_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace vernier::text {

// UTF-8 for text a program wrote (its output, its metrics file), which may
// hold any bytes, before it enters a proto string field: protobuf refuses to
// parse a message whose string field is not valid UTF-8.
class Utf8Text {
 public:
  // U+FFFD REPLACEMENT CHARACTER.
  static constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

  // Whether `text` is well-formed UTF-8 (no overlong forms, no surrogates,
  // nothing above U+10FFFF).
  static bool IsValid(std::string_view text);
  // The offset of the first byte that does not start a valid character, if
  // any.
  static std::optional<size_t> FindInvalid(std::string_view text);
  // `text` with each maximal invalid subsequence replaced by U+FFFD (as the
  // Unicode standard recommends; valid text comes back unchanged).
  static std::string Sanitize(std::string_view text);
  // The longest prefix of `text` of at most `max_bytes` bytes that does not
  // end inside a multi-byte character of `text`.
  static std::string_view CutAtCharBoundary(std::string_view text, size_t max_bytes);
  // `text` without a trailing multi-byte character that was cut short, as a
  // byte limit leaves it.
  static std::string_view TrimIncompleteTail(std::string_view text);
  // The number of bytes of the valid character at the start of `text`, or 0
  // when `text` does not start with one.
  static size_t ValidCharLength(std::string_view text);
};

}  // namespace vernier::text

#endif  // VERNIER_TEXT_UTF8_TEXT_H_
