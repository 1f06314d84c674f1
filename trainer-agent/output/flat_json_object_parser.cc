#include "trainer-agent/output/flat_json_object_parser.h"

#include <cstdint>
#include <limits>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "metrics/metric_value.h"

namespace vernier::agent {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void AppendUtf8(uint32_t code_point, std::string& out) {
  if (code_point < 0x80) {
    out.push_back(static_cast<char>(code_point));
  } else if (code_point < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (code_point >> 6)));
    out.push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  } else if (code_point < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (code_point >> 12)));
    out.push_back(static_cast<char>(0x80 | ((code_point >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (code_point >> 18)));
    out.push_back(static_cast<char>(0x80 | ((code_point >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((code_point >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  }
}

}  // namespace

absl::StatusOr<std::vector<JsonField>> FlatJsonObjectParser::Parse(std::string_view text) {
  FlatJsonObjectParser parser(text);
  return parser.ParseObject();
}

absl::Status FlatJsonObjectParser::Error(std::string_view what) const {
  return absl::InvalidArgumentError(
      absl::StrCat("JSON column ", pos_ + 1, ": ", std::string(what)));
}

void FlatJsonObjectParser::SkipWhitespace() {
  while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' ||
                                 text_[pos_] == '\r')) {
    ++pos_;
  }
}

bool FlatJsonObjectParser::Consume(std::string_view literal) {
  if (text_.substr(pos_, literal.size()) != literal) return false;
  pos_ += literal.size();
  return true;
}

absl::StatusOr<std::vector<JsonField>> FlatJsonObjectParser::ParseObject() {
  std::vector<JsonField> fields;
  SkipWhitespace();
  if (!Consume("{")) return Error("expected '{' to open an object");
  SkipWhitespace();
  if (!Consume("}")) {
    while (true) {
      SkipWhitespace();
      if (pos_ >= text_.size() || text_[pos_] != '"') return Error("expected a string key");
      absl::StatusOr<std::string> key = ParseString();
      if (!key.ok()) return key.status();
      SkipWhitespace();
      if (!Consume(":")) return Error(absl::StrCat("expected ':' after key \"", *key, "\""));
      SkipWhitespace();
      absl::StatusOr<JsonScalar> value = ParseValue(*key);
      if (!value.ok()) return value.status();
      fields.push_back(JsonField{*std::move(key), *std::move(value)});
      SkipWhitespace();
      if (Consume(",")) continue;
      if (Consume("}")) break;
      return Error("expected ',' or '}' after a value");
    }
  }
  SkipWhitespace();
  if (pos_ != text_.size()) return Error("unexpected text after the object");
  return fields;
}

absl::StatusOr<JsonScalar> FlatJsonObjectParser::ParseValue(std::string_view key) {
  if (pos_ >= text_.size())
    return Error(absl::StrCat("missing value for key \"", std::string(key), "\""));
  const char c = text_[pos_];
  if (c == '"') {
    absl::StatusOr<std::string> value = ParseString();
    if (!value.ok()) return value.status();
    return JsonScalar(*std::move(value));
  }
  if (c == '{' || c == '[') {
    return Error(absl::StrCat("value of key \"", std::string(key),
                              "\" is an object or array; only flat ",
                              "objects with scalar values are supported"));
  }
  if (Consume("true")) return JsonScalar(true);
  if (Consume("false")) return JsonScalar(false);
  if (Consume("null")) return JsonScalar(nullptr);
  if (Consume("NaN")) return JsonScalar(std::numeric_limits<double>::quiet_NaN());
  if (Consume("Infinity")) return JsonScalar(std::numeric_limits<double>::infinity());
  if (Consume("-Infinity")) return JsonScalar(-std::numeric_limits<double>::infinity());
  if (c == '-' || IsDigit(c)) {
    absl::StatusOr<double> number = ParseNumber();
    if (!number.ok()) return number.status();
    return JsonScalar(*number);
  }
  return Error(absl::StrCat("invalid value for key \"", std::string(key), "\""));
}

absl::StatusOr<double> FlatJsonObjectParser::ParseNumber() {
  // JSON's grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
  const size_t start = pos_;
  if (pos_ < text_.size() && text_[pos_] == '-') ++pos_;
  if (pos_ >= text_.size() || !IsDigit(text_[pos_])) return Error("expected a digit");
  if (text_[pos_] == '0') {
    ++pos_;
  } else {
    while (pos_ < text_.size() && IsDigit(text_[pos_])) ++pos_;
  }
  if (pos_ < text_.size() && text_[pos_] == '.') {
    ++pos_;
    if (pos_ >= text_.size() || !IsDigit(text_[pos_])) return Error("expected a digit after '.'");
    while (pos_ < text_.size() && IsDigit(text_[pos_])) ++pos_;
  }
  if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
    ++pos_;
    if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
    if (pos_ >= text_.size() || !IsDigit(text_[pos_])) {
      return Error("expected a digit in the exponent");
    }
    while (pos_ < text_.size() && IsDigit(text_[pos_])) ++pos_;
  }
  const std::optional<double> value =
      metrics::MetricValue::ParseNumber(text_.substr(start, pos_ - start));
  if (!value.has_value()) return Error("invalid number");
  return *value;
}

absl::StatusOr<std::string> FlatJsonObjectParser::ParseString() {
  ++pos_;  // The opening quote.
  std::string out;
  while (true) {
    if (pos_ >= text_.size()) return Error("unterminated string");
    const char c = text_[pos_];
    if (c == '"') {
      ++pos_;
      return out;
    }
    if (static_cast<unsigned char>(c) < 0x20) return Error("control character inside a string");
    if (c != '\\') {
      out.push_back(c);
      ++pos_;
      continue;
    }
    ++pos_;
    if (pos_ >= text_.size()) return Error("unterminated escape");
    const char escape = text_[pos_++];
    switch (escape) {
      case '"':
      case '\\':
      case '/':
        out.push_back(escape);
        break;
      case 'b':
        out.push_back('\b');
        break;
      case 'f':
        out.push_back('\f');
        break;
      case 'n':
        out.push_back('\n');
        break;
      case 'r':
        out.push_back('\r');
        break;
      case 't':
        out.push_back('\t');
        break;
      case 'u':
        if (absl::Status status = ParseUnicodeEscape(out); !status.ok()) return status;
        break;
      default:
        --pos_;
        return Error(absl::StrCat("invalid escape '\\", std::string(1, escape), "'"));
    }
  }
}

absl::Status FlatJsonObjectParser::ParseUnicodeEscape(std::string& out) {
  const auto read_hex4 = [this]() -> int32_t {
    if (pos_ + 4 > text_.size()) return -1;
    int32_t value = 0;
    for (int i = 0; i < 4; ++i) {
      const int digit = HexDigit(text_[pos_ + i]);
      if (digit < 0) return -1;
      value = value * 16 + digit;
    }
    pos_ += 4;
    return value;
  };
  const int32_t first = read_hex4();
  if (first < 0) return Error("expected four hex digits after \\u");
  uint32_t code_point = static_cast<uint32_t>(first);
  if (first >= 0xD800 && first <= 0xDBFF) {
    if (!Consume("\\u")) return Error("high surrogate without a following \\u low surrogate");
    const int32_t second = read_hex4();
    if (second < 0xDC00 || second > 0xDFFF) return Error("invalid low surrogate after \\u");
    code_point = 0x10000 + ((static_cast<uint32_t>(first) - 0xD800) << 10) +
                 (static_cast<uint32_t>(second) - 0xDC00);
  } else if (first >= 0xDC00 && first <= 0xDFFF) {
    return Error("low surrogate without a preceding high surrogate");
  }
  AppendUtf8(code_point, out);
  return absl::OkStatus();
}

}  // namespace vernier::agent
