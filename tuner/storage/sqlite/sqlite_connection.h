#ifndef VERNIER_TUNER_STORAGE_SQLITE_SQLITE_CONNECTION_H_
#define VERNIER_TUNER_STORAGE_SQLITE_SQLITE_CONNECTION_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "tuner/storage/sqlite/sqlite_statement.h"

struct sqlite3;
struct sqlite3_stmt;

namespace vernier::storage {

// One SQLite connection, configured for a durable shared store: WAL journal,
// synchronous=FULL, foreign keys enforced, and a busy timeout so that a writer
// waits for another instead of failing. Used by one thread at a time (the pool
// lends it out), so SQLite's own per-connection mutex is off.
class SqliteConnection {
 public:
  // FAILED_PRECONDITION naming `path` and SQLite's message when the file cannot
  // be opened as a database.
  static absl::StatusOr<std::unique_ptr<SqliteConnection>> Open(const std::string& path,
                                                                absl::Duration busy_timeout);

  SqliteConnection(const SqliteConnection&) = delete;
  SqliteConnection& operator=(const SqliteConnection&) = delete;
  ~SqliteConnection();

  // Runs SQL text that may hold several statements, discarding any rows.
  absl::Status Execute(std::string_view sql);
  // Compiles `sql` once per connection and lends out the cached statement; a
  // statement must be released before the same text is prepared again.
  absl::StatusOr<SqliteStatement> Prepare(std::string_view sql);

  // Checked once when a store opens, so that a bad data dir stops `vernier
  // serve` at start rather than at its first read or write: each is
  // FAILED_PRECONDITION naming the path. CheckIntact runs SQLite's quick
  // integrity check (a corrupted file fails); CheckWritable commits an update
  // that changes nothing to schema_version (a read-only file, directory or
  // file system fails).
  absl::Status CheckIntact();
  absl::Status CheckWritable();

  // Rows changed by the last INSERT, UPDATE or DELETE.
  int64_t Changes() const;
  bool InTransaction() const;
  const std::string& path() const { return path_; }

 private:
  SqliteConnection(sqlite3* db, std::string path);

  sqlite3* db_;
  std::string path_;
  std::unordered_map<std::string, sqlite3_stmt*> statements_;
};

}  // namespace vernier::storage

#endif  // VERNIER_TUNER_STORAGE_SQLITE_SQLITE_CONNECTION_H_
