#include "tuner/storage/sqlite/sqlite_error.h"

#include <sqlite3.h>

#include <utility>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "spdlog/spdlog.h"
#include "tuner/storage/transient_error.h"

namespace vernier::storage {
namespace {

// A payload rather than a status code marks busy errors, so that a caller's own
// status (a mutator's UNAVAILABLE, say) is never mistaken for one and retried.
constexpr absl::string_view kBusyPayloadUrl = "type.vernier.dev/storage.SqliteBusy";

}  // namespace

absl::Status SqliteError(sqlite3* db, int result_code, absl::string_view doing) {
  const char* file = db != nullptr ? sqlite3_db_filename(db, "main") : nullptr;
  const char* message = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(result_code);
  const std::string text =
      absl::StrCat("SQLite database ", file != nullptr && *file != '\0' ? file : "(unnamed)", ": ",
                   doing, " failed: ", message, " (code ", result_code, ")");
  const int primary_code = result_code & 0xff;
  // A full disk passes once space is freed: clients retry RESOURCE_EXHAUSTED
  // (the agent keeps its measurements until then).
  absl::Status status = primary_code == SQLITE_FULL ? absl::ResourceExhaustedError(text)
                                                    : absl::InternalError(text);
  // Problems of the machine, not of a request: the operator must see them in
  // the server's log, not only the client in its answer.
  if (primary_code == SQLITE_FULL || primary_code == SQLITE_IOERR ||
      primary_code == SQLITE_READONLY || primary_code == SQLITE_CORRUPT ||
      primary_code == SQLITE_CANTOPEN || primary_code == SQLITE_NOTADB) {
    spdlog::error("{}", text);
  }
  if (primary_code == SQLITE_BUSY || primary_code == SQLITE_LOCKED) {
    status.SetPayload(kBusyPayloadUrl, absl::Cord("busy"));
  }
  // The store is away for a while, not wrong: what needs it waits.
  if (primary_code == SQLITE_BUSY || primary_code == SQLITE_LOCKED || primary_code == SQLITE_FULL ||
      primary_code == SQLITE_IOERR) {
    status = MarkTransient(std::move(status));
  }
  return status;
}

bool IsSqliteBusy(const absl::Status& status) {
  return status.GetPayload(kBusyPayloadUrl).has_value();
}

}  // namespace vernier::storage
