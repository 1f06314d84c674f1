#ifndef VERNIER_TUNER_STORAGE_TRANSIENT_ERROR_H_
#define VERNIER_TUNER_STORAGE_TRANSIENT_ERROR_H_

#include "absl/status/status.h"

namespace vernier::storage {

// The one place that says which store failures are transient: the store
// itself is away or busy for a while, and the same call is expected to pass
// once it is back. Each store marks them where it turns its own errors into
// a status (PostgresError, SqliteError):
//   PostgreSQL: a lost or refused connection, SQLSTATE class 08, the
//     shutdown codes 57P01..57P03, a serialization failure (40001) or
//     deadlock (40P01), a commit or statement whose outcome is unknown,
//     insufficient resources (class 53: disk, memory, connections);
//   SQLite: SQLITE_BUSY and SQLITE_LOCKED, a full disk (SQLITE_FULL) and an
//     I/O error (SQLITE_IOERR).
// Everything else (a constraint, a missing table, bad data, a caller's own
// status whatever its code) is permanent. Transient failures never fail a
// job, trial or study: what needs the store waits and retries, up to
// `vernier serve --store-outage-limit` (docs/postgresql.md). On the wire
// they are UNAVAILABLE, whatever their code here (ToGrpcStatus).
absl::Status MarkTransient(absl::Status status);

// Whether a store marked `status` transient.
bool IsTransientStoreError(const absl::Status& status);

}  // namespace vernier::storage

#endif  // VERNIER_TUNER_STORAGE_TRANSIENT_ERROR_H_
