#ifndef VERNIER_TUNER_STORAGE_API_TOKEN_STORE_H_
#define VERNIER_TUNER_STORAGE_API_TOKEN_STORE_H_

#include <functional>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "vernier/v1/auth.pb.h"

namespace vernier::storage {

using ApiTokenMutator = std::function<absl::Status(v1::ApiToken&)>;

// API tokens and agents' credentials (docs/security.md): never the token,
// only its SHA-256 (hex) as the key, and the ApiToken it stands for. Part
// of Storage; each method is one transaction.
class ApiTokenStore {
 public:
  virtual ~ApiTokenStore() = default;

  // ALREADY_EXISTS when the hash or token.id() is stored already;
  // INVALID_ARGUMENT for an empty hash or id.
  virtual absl::Status CreateApiToken(std::string_view token_hash, const v1::ApiToken& token) = 0;
  // NOT_FOUND (without the hash in the message) when none has that hash.
  virtual absl::StatusOr<v1::ApiToken> FindApiToken(std::string_view token_hash) = 0;
  // Every stored token, oldest first (ties by id).
  virtual absl::StatusOr<std::vector<v1::ApiToken>> ListApiTokens() = 0;
  // Reads the token with that id, applies `mutate`, writes it back; its id
  // and hash stay. NOT_FOUND naming the id.
  virtual absl::StatusOr<v1::ApiToken> UpdateApiToken(std::string_view token_id,
                                                      const ApiTokenMutator& mutate) = 0;
  // Removes the token; NOT_FOUND naming the id.
  virtual absl::Status DeleteApiToken(std::string_view token_id) = 0;
};

}  // namespace vernier::storage

#endif  // VERNIER_TUNER_STORAGE_API_TOKEN_STORE_H_
