#include "tuner/storage/sqlite/sqlite_connection.h"

#include <sqlite3.h>

#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "text/absl_view.h"
#include "tuner/storage/sqlite/sqlite_error.h"

namespace vernier::storage {
namespace {

absl::Status OpenError(const std::string& path, absl::string_view message) {
  return absl::FailedPreconditionError(
      absl::StrCat("cannot open SQLite database \"", path, "\": ", message));
}

}  // namespace

SqliteConnection::SqliteConnection(sqlite3* db, std::string path)
    : db_(db), path_(std::move(path)) {}

SqliteConnection::~SqliteConnection() {
  for (auto& [sql, statement] : statements_) sqlite3_finalize(statement);
  sqlite3_close_v2(db_);
}

absl::StatusOr<std::unique_ptr<SqliteConnection>> SqliteConnection::Open(
    const std::string& path, absl::Duration busy_timeout) {
  sqlite3* db = nullptr;
  const int result = sqlite3_open_v2(
      path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  if (result != SQLITE_OK) {
    const std::string message = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(result);
    sqlite3_close_v2(db);
    return OpenError(path, message);
  }
  std::unique_ptr<SqliteConnection> connection(new SqliteConnection(db, path));
  sqlite3_extended_result_codes(db, 1);
  sqlite3_busy_timeout(db, static_cast<int>(absl::ToInt64Milliseconds(busy_timeout)));

  // The first statement reads the file header: a file that is not a database
  // fails here. WAL lets readers run beside the one writer; it is a property of
  // the file, so setting it again on every connection is a no-op.
  std::string mode;
  {
    absl::StatusOr<SqliteStatement> journal_mode = connection->Prepare("PRAGMA journal_mode = WAL");
    if (!journal_mode.ok()) return OpenError(path, journal_mode.status().message());
    absl::StatusOr<bool> has_row = journal_mode->Step();
    if (!has_row.ok()) return OpenError(path, has_row.status().message());
    if (*has_row) mode = absl::AsciiStrToLower(journal_mode->ColumnText(0));
  }
  if (mode != "wal") {
    return OpenError(path, absl::StrCat("the journal mode stays \"", mode,
                                        "\" instead of \"wal\" (is the file system local?)"));
  }
  absl::Status pragmas =
      connection->Execute("PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;");
  if (!pragmas.ok()) return OpenError(path, pragmas.message());
  return connection;
}

absl::Status SqliteConnection::CheckIntact() {
  VERNIER_ASSIGN_OR_RETURN(SqliteStatement check, Prepare("PRAGMA quick_check"));
  std::vector<std::string> problems;
  for (;;) {
    absl::StatusOr<bool> has_row = check.Step();
    if (!has_row.ok()) {
      problems = {std::string(has_row.status().message())};
      break;
    }
    if (!*has_row) break;
    std::string line = check.ColumnText(0);
    if (line != "ok" && problems.size() < 5) problems.push_back(std::move(line));
  }
  if (problems.empty()) return absl::OkStatus();
  return OpenError(path_,
                   absl::StrCat("the database is corrupted (PRAGMA quick_check: ",
                                absl::StrJoin(problems, "; "), "); restore it from a backup"));
}

absl::Status SqliteConnection::CheckWritable() {
  if (sqlite3_db_readonly(db_, "main") == 1) {
    return OpenError(path_,
                     "the database can only be read (is the file or its directory "
                     "read-only for this user?)");
  }
  // The write probe: an update that changes nothing, committed like any
  // write, so a directory where the WAL cannot grow fails here.
  if (absl::Status probe =
          Execute("BEGIN IMMEDIATE; UPDATE schema_version SET version = version; COMMIT;");
      !probe.ok()) {
    if (InTransaction()) (void)Execute("ROLLBACK");
    return OpenError(path_, absl::StrCat("a test write failed: ", probe.message()));
  }
  return absl::OkStatus();
}

absl::Status SqliteConnection::Execute(std::string_view sql) {
  const std::string text(sql);
  char* message = nullptr;
  const int result = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &message);
  sqlite3_free(message);
  if (result == SQLITE_OK) return absl::OkStatus();
  return SqliteError(db_, result, absl::StrCat("running `", text::AbslView(sql), "`"));
}

absl::StatusOr<SqliteStatement> SqliteConnection::Prepare(std::string_view sql) {
  std::string key(sql);
  auto it = statements_.find(key);
  if (it == statements_.end()) {
    sqlite3_stmt* statement = nullptr;
    const int result = sqlite3_prepare_v3(db_, key.data(), static_cast<int>(key.size()),
                                          SQLITE_PREPARE_PERSISTENT, &statement, nullptr);
    if (result != SQLITE_OK) {
      sqlite3_finalize(statement);
      return SqliteError(db_, result, absl::StrCat("preparing `", text::AbslView(sql), "`"));
    }
    it = statements_.emplace(std::move(key), statement).first;
  }
  return SqliteStatement(db_, it->second);
}

int64_t SqliteConnection::Changes() const { return sqlite3_changes64(db_); }

bool SqliteConnection::InTransaction() const { return sqlite3_get_autocommit(db_) == 0; }

}  // namespace vernier::storage
