#include "tuner/storage/sqlite/sqlite_statement.h"

#include <sqlite3.h>

#include <utility>

#include "absl/strings/str_cat.h"
#include "tuner/storage/sqlite/sqlite_error.h"

namespace vernier::storage {

SqliteStatement::SqliteStatement(sqlite3* db, sqlite3_stmt* statement)
    : db_(db), statement_(statement) {}

SqliteStatement::SqliteStatement(SqliteStatement&& other) noexcept
    : db_(other.db_),
      statement_(std::exchange(other.statement_, nullptr)),
      bind_status_(std::move(other.bind_status_)) {}

SqliteStatement::~SqliteStatement() {
  if (statement_ != nullptr) {
    sqlite3_reset(statement_);
    sqlite3_clear_bindings(statement_);
  }
}

absl::Status SqliteStatement::Check(int result_code, absl::string_view doing) {
  if (result_code == SQLITE_OK) return absl::OkStatus();
  return SqliteError(db_, result_code, absl::StrCat(doing, " of `", sqlite3_sql(statement_), "`"));
}

SqliteStatement& SqliteStatement::BindInt64(int index, int64_t value) {
  if (bind_status_.ok()) {
    bind_status_ =
        Check(sqlite3_bind_int64(statement_, index, value), absl::StrCat("binding #", index));
  }
  return *this;
}

SqliteStatement& SqliteStatement::BindText(int index, std::string_view text) {
  if (bind_status_.ok()) {
    bind_status_ = Check(sqlite3_bind_text64(statement_, index, text.data(), text.size(),
                                             SQLITE_TRANSIENT, SQLITE_UTF8),
                         absl::StrCat("binding #", index));
  }
  return *this;
}

SqliteStatement& SqliteStatement::BindOptionalDouble(int index, std::optional<double> value) {
  if (bind_status_.ok()) {
    bind_status_ = Check(value.has_value() ? sqlite3_bind_double(statement_, index, *value)
                                           : sqlite3_bind_null(statement_, index),
                         absl::StrCat("binding #", index));
  }
  return *this;
}

SqliteStatement& SqliteStatement::BindBlob(int index, std::string_view bytes) {
  if (bind_status_.ok()) {
    // A null pointer would bind SQL NULL; an empty message is an empty BLOB.
    static constexpr char kEmpty = '\0';
    bind_status_ =
        Check(sqlite3_bind_blob64(statement_, index, bytes.empty() ? &kEmpty : bytes.data(),
                                  bytes.size(), SQLITE_TRANSIENT),
              absl::StrCat("binding #", index));
  }
  return *this;
}

absl::StatusOr<bool> SqliteStatement::Step() {
  if (!bind_status_.ok()) return bind_status_;
  const int result = sqlite3_step(statement_);
  if (result == SQLITE_ROW) return true;
  if (result == SQLITE_DONE) return false;
  return Check(result, "running");
}

absl::Status SqliteStatement::Run() {
  for (;;) {
    absl::StatusOr<bool> has_row = Step();
    if (!has_row.ok()) return has_row.status();
    if (!*has_row) return absl::OkStatus();
  }
}

int64_t SqliteStatement::ColumnInt64(int column) const {
  return sqlite3_column_int64(statement_, column);
}

std::string SqliteStatement::ColumnText(int column) const {
  const unsigned char* text = sqlite3_column_text(statement_, column);
  if (text == nullptr) return "";
  return std::string(reinterpret_cast<const char*>(text),
                     static_cast<size_t>(sqlite3_column_bytes(statement_, column)));
}

std::string_view SqliteStatement::ColumnBlob(int column) const {
  const void* data = sqlite3_column_blob(statement_, column);
  if (data == nullptr) return {};
  return std::string_view(static_cast<const char*>(data),
                          static_cast<size_t>(sqlite3_column_bytes(statement_, column)));
}

}  // namespace vernier::storage
