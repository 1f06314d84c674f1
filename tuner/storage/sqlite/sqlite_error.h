#ifndef VERNIER_TUNER_STORAGE_SQLITE_SQLITE_ERROR_H_
#define VERNIER_TUNER_STORAGE_SQLITE_SQLITE_ERROR_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

struct sqlite3;

namespace vernier::storage {

// The status of a failed SQLite call on `db`: INTERNAL with the database file,
// what was being done, and SQLite's own message and extended result code;
// RESOURCE_EXHAUSTED for a full disk (SQLITE_FULL), which clients retry. A
// problem of the machine (full disk, I/O error, read-only or corrupt file) is
// also logged as an error line.
// SQLITE_BUSY and SQLITE_LOCKED are marked so that IsSqliteBusy() finds them;
// they, SQLITE_FULL and SQLITE_IOERR are transient (IsTransientStoreError).
absl::Status SqliteError(sqlite3* db, int result_code, absl::string_view doing);

// True when `status` came from SQLite giving up on a lock another connection
// held: the transaction that met it may be retried from its start.
bool IsSqliteBusy(const absl::Status& status);

}  // namespace vernier::storage

#endif  // VERNIER_TUNER_STORAGE_SQLITE_SQLITE_ERROR_H_
