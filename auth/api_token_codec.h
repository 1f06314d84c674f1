#ifndef VERNIER_AUTH_API_TOKEN_CODEC_H_
#define VERNIER_AUTH_API_TOKEN_CODEC_H_

#include <array>
#include <cstdint>
#include <string>
#include "absl/strings/string_view.h"

#include "absl/status/statusor.h"

namespace vernier::auth {

// 256 random bits.
using TokenSecret = std::array<uint8_t, 32>;

// The secret as a bearer token: "vnr_" and 64 hex digits.
std::string FormatToken(const TokenSecret& secret);
// 32 bytes from the system's cryptographic random source (OpenSSL's
// RAND_bytes); INTERNAL if it fails.
absl::StatusOr<TokenSecret> RandomTokenSecret();
// The SHA-256 of the token text, in hex: what the store keeps.
std::string HashToken(absl::string_view token);
// The public id of a token: the first 12 hex digits of its hash.
std::string TokenIdOfHash(absl::string_view token_hash);
// The token in an `authorization` metadata value "Bearer TOKEN" (the scheme
// case-insensitive); UNAUTHENTICATED saying what is wrong otherwise.
absl::StatusOr<std::string> TokenFromAuthorization(absl::string_view value);
// Whether `text` has the shape FormatToken makes (used to redact).
bool LooksLikeToken(absl::string_view text);

}  // namespace vernier::auth

#endif  // VERNIER_AUTH_API_TOKEN_CODEC_H_
