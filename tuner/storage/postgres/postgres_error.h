#ifndef VERNIER_TUNER_STORAGE_POSTGRES_POSTGRES_ERROR_H_
#define VERNIER_TUNER_STORAGE_POSTGRES_POSTGRES_ERROR_H_

#include <exception>
#include <string_view>

#include "absl/status/status.h"

namespace vernier::storage {

// The status for an exception libpqxx threw while `doing` something (a phrase
// naming the study, trial or job concerned): UNAVAILABLE for a lost or
// refused connection, and for a commit whose outcome is unknown;
// FAILED_PRECONDITION for a connection the server refused because the
// database the URL names does not exist (saying how to create it); ABORTED for
// a serialization failure or deadlock; ALREADY_EXISTS for a unique
// violation; DEADLINE_EXCEEDED for a lock or statement timeout;
// RESOURCE_EXHAUSTED, with an error log line, when the server is out of
// disk space (SQLSTATE 53100), memory (53200), connections (53300) or
// another resource (class 53); INTERNAL for the rest. The message carries
// PostgreSQL's, and its SQLSTATE when known.
absl::Status PostgresError(const std::exception& error, std::string_view doing);

// True for a status PostgresError made from a failure that left nothing
// committed and may pass when the whole transaction runs again: a
// serialization failure, a deadlock, or a connection lost before COMMIT. A
// caller's own status is never retryable, whatever its code.
bool IsRetryablePostgresError(const absl::Status& status);

}  // namespace vernier::storage

#endif  // VERNIER_TUNER_STORAGE_POSTGRES_POSTGRES_ERROR_H_
