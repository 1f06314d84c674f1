#ifndef VERNIER_TUNER_STORAGE_SQLITE_SQLITE_STATEMENT_H_
#define VERNIER_TUNER_STORAGE_SQLITE_SQLITE_STATEMENT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

struct sqlite3;
struct sqlite3_stmt;

namespace vernier::storage {

// A prepared statement lent out of a connection's cache. It resets itself and
// clears its bindings when it goes out of scope, so the next borrower starts
// clean. Parameter indexes start at 1 and column indexes at 0, as in SQLite.
class SqliteStatement {
 public:
  SqliteStatement(sqlite3* db, sqlite3_stmt* statement);
  SqliteStatement(SqliteStatement&& other) noexcept;
  SqliteStatement& operator=(SqliteStatement&&) = delete;
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;
  ~SqliteStatement();

  // Binding errors are kept and reported by the next Step() or Run().
  SqliteStatement& BindInt64(int index, int64_t value);
  SqliteStatement& BindText(int index, std::string_view text);
  SqliteStatement& BindBlob(int index, std::string_view bytes);
  // SQL NULL when `value` is empty.
  SqliteStatement& BindOptionalDouble(int index, std::optional<double> value);

  // True when a row is ready to read, false when the statement is done.
  absl::StatusOr<bool> Step();
  // Steps to the end, for statements that return no rows.
  absl::Status Run();

  int64_t ColumnInt64(int column) const;
  std::string ColumnText(int column) const;
  // Valid until the next Step().
  std::string_view ColumnBlob(int column) const;

 private:
  absl::Status Check(int result_code, absl::string_view doing);

  sqlite3* db_;
  sqlite3_stmt* statement_;
  absl::Status bind_status_;
};

}  // namespace vernier::storage

#endif  // VERNIER_TUNER_STORAGE_SQLITE_SQLITE_STATEMENT_H_
