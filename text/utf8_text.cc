#include "text/utf8_text.h"

#include <cstdint>

namespace vernier::text {
namespace {

bool IsContinuation(unsigned char byte) { return (byte & 0xC0) == 0x80; }

// The bytes a character starting with `lead` has, or 0 for a byte that never
// starts one.
size_t SequenceLength(unsigned char lead) {
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF) return 2;
  if (lead >= 0xE0 && lead <= 0xEF) return 3;
  if (lead >= 0xF0 && lead <= 0xF4) return 4;
  return 0;
}

// The range the second byte of a sequence starting with `lead` must be in
// (which excludes overlong forms, surrogates and code points past U+10FFFF).
bool SecondByteFits(unsigned char lead, unsigned char second) {
  switch (lead) {
    case 0xE0:
      return second >= 0xA0 && second <= 0xBF;
    case 0xED:
      return second >= 0x80 && second <= 0x9F;
    case 0xF0:
      return second >= 0x90 && second <= 0xBF;
    case 0xF4:
      return second >= 0x80 && second <= 0x8F;
    default:
      return IsContinuation(second);
  }
}

// How many bytes at the start of `text` form a valid prefix of a character
// (a complete one when the result equals its SequenceLength); 0 when the
// first byte cannot start one.
size_t ValidPrefix(std::string_view text) {
  const auto lead = static_cast<unsigned char>(text[0]);
  const size_t length = SequenceLength(lead);
  if (length <= 1) return length;
  size_t have = 1;
  while (have < length && have < text.size()) {
    const auto byte = static_cast<unsigned char>(text[have]);
    const bool fits = have == 1 ? SecondByteFits(lead, byte) : IsContinuation(byte);
    if (!fits) break;
    ++have;
  }
  return have;
}

}  // namespace

size_t Utf8Text::ValidCharLength(std::string_view text) {
  if (text.empty()) return 0;
  const size_t length = SequenceLength(static_cast<unsigned char>(text[0]));
  return length != 0 && ValidPrefix(text) == length ? length : 0;
}

std::optional<size_t> Utf8Text::FindInvalid(std::string_view text) {
  size_t offset = 0;
  while (offset < text.size()) {
    const size_t length = ValidCharLength(text.substr(offset));
    if (length == 0) return offset;
    offset += length;
  }
  return std::nullopt;
}

bool Utf8Text::IsValid(std::string_view text) { return !FindInvalid(text).has_value(); }

std::string Utf8Text::Sanitize(std::string_view text) {
  if (IsValid(text)) return std::string(text);
  std::string out;
  out.reserve(text.size() + 8);
  while (!text.empty()) {
    const size_t length = ValidCharLength(text);
    if (length != 0) {
      out.append(text.substr(0, length));
      text.remove_prefix(length);
      continue;
    }
    // A maximal subpart: the bytes that begin a character but do not
    // complete it, or one byte that begins none.
    const size_t prefix = ValidPrefix(text);
    out.append(kReplacement);
    text.remove_prefix(prefix == 0 ? 1 : prefix);
  }
  return out;
}

std::string_view Utf8Text::TrimIncompleteTail(std::string_view text) {
  // A character has at most 4 bytes: look at the last 3 for its lead.
  for (size_t back = 1; back <= 3 && back <= text.size(); ++back) {
    const auto byte = static_cast<unsigned char>(text[text.size() - back]);
    if (IsContinuation(byte)) continue;
    const size_t length = SequenceLength(byte);
    const std::string_view tail = text.substr(text.size() - back);
    if (length > back && ValidPrefix(tail) == back) return text.substr(0, text.size() - back);
    return text;
  }
  return text;
}

std::string_view Utf8Text::CutAtCharBoundary(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  size_t end = max_bytes;
  // Back off over the continuation bytes of a character the cut would split.
  for (size_t back = 0; back < 3 && end > 0; ++back) {
    if (!IsContinuation(static_cast<unsigned char>(text[end]))) break;
    --end;
  }
  if (end < max_bytes && ValidCharLength(text.substr(end)) <= max_bytes - end) end = max_bytes;
  return text.substr(0, end);
}

}  // namespace vernier::text
