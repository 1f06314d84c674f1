#ifndef VERNIER_TUNER_CLI_AUTH_COMMANDS_H_
#define VERNIER_TUNER_CLI_AUTH_COMMANDS_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "google/protobuf/repeated_ptr_field.h"
#include "tuner/cli/command_context.h"
#include "tuner/cli/vernier_client.h"
#include "vernier/v1/auth.pb.h"

namespace vernier::cli {

// `vernier tokens ...`, `vernier studies|jobs share` and `vernier audit ...`.
class AuthCommands {
 public:
  AuthCommands(VernierClient* client, CommandContext context)
      : client_(client), context_(std::move(context)) {}

  // Prints the new token (once) and how to use it; `expires` as --expires
  // takes it ("30d", "12h", "0" for never).
  absl::Status CreateToken(const std::string& user, const std::string& role,
                           const std::string& expires);
  absl::Status ListTokens(bool include_inactive);
  absl::Status RevokeToken(const std::string& token_id);
  // `role` viewer, developer or none (removes the user's grant).
  absl::Status Share(bool job, const std::string& name, const std::string& user,
                     const std::string& role);
  // `vernier audit list`: `since` as --since takes it ("" for any).
  absl::Status ListAudit(const std::string& user, const std::string& resource,
                         const std::string& since, int limit);
  // `vernier audit verify`: DATA_LOSS, saying where, when the chain is broken.
  // `head_hash`: a head noted from an earlier run, which the log must still
  // hold ("": the chain alone).
  absl::Status VerifyAudit(const std::string& head_hash = "");

 private:
  absl::Status PrintJson(const google::protobuf::Message& message);

  VernierClient* client_;
  CommandContext context_;
};

// --expires: a whole number with s, m, h or d ("30d"); "0" or "never": no
// expiry. INVALID_ARGUMENT naming the flag otherwise.
absl::StatusOr<absl::Duration> ParseExpiry(const std::string& text);
// --since: an RFC 3339 time ("2026-11-26T03:00:00Z") or how long ago
// ("90m", "2h", "7d") from `now`. INVALID_ARGUMENT naming the flag otherwise.
absl::StatusOr<absl::Time> ParseSince(const std::string& text, absl::Time now);
// "alice (developer), bob (viewer)"; "-" for none.
std::string FormatGrants(const google::protobuf::RepeatedPtrField<v1::AccessGrant>& grants);

}  // namespace vernier::cli

#endif  // VERNIER_TUNER_CLI_AUTH_COMMANDS_H_
