#ifndef VERNIER_AUTH_SECRET_REDACTION_H_
#define VERNIER_AUTH_SECRET_REDACTION_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "google/protobuf/message.h"

namespace vernier::auth {

// What stands in for a secret wherever one would be shown.
inline constexpr absl::string_view kRedacted = "[redacted]";

// Whether a name (an environment variable's, a field's, a metadata key's)
// looks like it holds a secret: it contains TOKEN, SECRET, PASSWORD,
// PASSWD, KEY, CREDENTIAL, AUTH, PRIVATE, SESSION or COOKIE, in any case
// ("HF_TOKEN", "aws_secret_access_key", "authorization"); not one that
// ends in _ID or PAGE_TOKEN (token_id names a token, it is not one).
bool LooksSecret(absl::string_view name);

// `NAME=VALUE` with the value replaced when NAME looks secret; anything
// else as given.
std::string RedactAssignment(absl::string_view text);
// `text` (a shell line, a script, a log line) with every word of the form
// NAME=VALUE, --NAME=VALUE or 'NAME=VALUE' whose NAME looks secret shown as
// NAME=[redacted], and the word after a flag `--NAME` whose NAME does as
// [redacted]; everything else, whitespace included, as given.
std::string RedactText(absl::string_view text);
// A command line without secrets: each argument as RedactText, and the
// argument after a flag whose name looks secret ("--api-key VALUE").
std::vector<std::string> RedactCommandLine(const std::vector<std::string>& arguments);

// `message` with every secret-looking value replaced: string fields whose
// name looks secret, map entries whose key does, `NAME=VALUE` strings whose
// NAME does, and in a repeated string field (a command line) the element
// after a flag whose name does (RedactCommandLine); recursively.
void RedactSecrets(google::protobuf::Message& message);

// The request in one line (protobuf text format) without secrets
// (RedactSecrets), cut to at most `max_bytes`.
std::string RequestSummary(const google::protobuf::Message& request, size_t max_bytes = 400);

}  // namespace vernier::auth

#endif  // VERNIER_AUTH_SECRET_REDACTION_H_
