#include "auth/api_token_codec.h"

#include <openssl/rand.h>
#include <openssl/sha.h>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace vernier::auth {
namespace {

constexpr absl::string_view kPrefix = "vnr_";

std::string Hex(const uint8_t* bytes, size_t size) {
  return absl::BytesToHexString(
      absl::string_view(reinterpret_cast<const char*>(bytes), size));
}

}  // namespace

std::string FormatToken(const TokenSecret& secret) {
  return absl::StrCat(kPrefix, Hex(secret.data(), secret.size()));
}

absl::StatusOr<TokenSecret> RandomTokenSecret() {
  TokenSecret secret{};
  if (RAND_bytes(secret.data(), static_cast<int>(secret.size())) != 1) {
    return absl::InternalError("the system's random source failed to make a token");
  }
  return secret;
}

std::string HashToken(absl::string_view token) {
  uint8_t digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const uint8_t*>(token.data()), token.size(), digest);
  return Hex(digest, sizeof(digest));
}

std::string TokenIdOfHash(absl::string_view token_hash) {
  return std::string(token_hash.substr(0, 12));
}

absl::StatusOr<std::string> TokenFromAuthorization(absl::string_view value) {
  value = absl::StripAsciiWhitespace(value);
  constexpr absl::string_view kScheme = "bearer ";
  if (value.size() <= kScheme.size() ||
      !absl::EqualsIgnoreCase(value.substr(0, kScheme.size()), kScheme)) {
    return absl::UnauthenticatedError(
        "the authorization metadata is not \"Bearer TOKEN\"; send the token as "
        "`authorization: Bearer TOKEN`");
  }
  absl::string_view token = absl::StripAsciiWhitespace(value.substr(kScheme.size()));
  if (token.empty()) return absl::UnauthenticatedError("the bearer token is empty");
  return std::string(token);
}

bool LooksLikeToken(absl::string_view text) {
  if (!absl::StartsWith(text, kPrefix) || text.size() != kPrefix.size() + 64) return false;
  for (char c : text.substr(kPrefix.size())) {
    if (!absl::ascii_isxdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

}  // namespace vernier::auth
