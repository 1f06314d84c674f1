#include "tuner/storage/storage_factory.h"

#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "common/status_macros.h"
#include "text/absl_view.h"
#include "tuner/storage/postgres/postgres_storage.h"
#include "tuner/storage/postgres/postgres_url.h"
#include "tuner/storage/sqlite/sqlite_storage.h"

namespace vernier::storage {
namespace {

constexpr absl::string_view kAcceptedForms =
    "use sqlite:PATH or a plain file path for the embedded SQLite store, or "
    "postgresql://USER@HOST:PORT/DATABASE for PostgreSQL";

// The scheme of "scheme:rest" as RFC 3986 spells one (a letter, then letters,
// digits, '+', '-' or '.'), lower-cased; empty when `url` has none.
std::string SchemeOf(std::string_view url) {
  const size_t colon = url.find(':');
  if (colon == std::string_view::npos || colon == 0) return "";
  const std::string_view scheme = url.substr(0, colon);
  if (!absl::ascii_isalpha(static_cast<unsigned char>(scheme.front()))) return "";
  for (const char c : scheme) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '-' && c != '.') {
      return "";
    }
  }
  return absl::AsciiStrToLower(text::AbslView(scheme));
}

}  // namespace

std::string DescribeStorageUrl(std::string_view url) {
  const std::string scheme = SchemeOf(url);
  if (scheme == "postgresql" || scheme == "postgres") return RedactPostgresUrl(url);
  return std::string(url);
}

absl::StatusOr<std::string> SqlitePathOf(std::string_view url) {
  if (url.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("--db is empty; ", kAcceptedForms));
  }
  const std::string scheme = SchemeOf(url);
  if (scheme == "postgresql" || scheme == "postgres") return std::string();
  std::string_view path = url;
  if (scheme == "sqlite") {
    path.remove_prefix(scheme.size() + 1);
    if (path.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--db \"", text::AbslView(url), "\" names no file after \"sqlite:\"; ", kAcceptedForms));
    }
  } else if (!scheme.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("--db \"", text::AbslView(url),
                                                   "\" has unsupported scheme \"", scheme, ":\"; ",
                                                   kAcceptedForms));
  }
  return std::string(path);
}

absl::StatusOr<std::unique_ptr<Storage>> OpenStorage(std::string_view url) {
  VERNIER_ASSIGN_OR_RETURN(const std::string sqlite_path, SqlitePathOf(url));
  if (sqlite_path.empty()) {
    absl::StatusOr<std::unique_ptr<PostgresStorage>> store =
        PostgresStorage::Open(std::string(url));
    if (!store.ok()) return store.status();
    return std::unique_ptr<Storage>(*std::move(store));
  }
  absl::StatusOr<std::unique_ptr<SqliteStorage>> store = SqliteStorage::Open(sqlite_path);
  if (!store.ok()) return store.status();
  return std::unique_ptr<Storage>(*std::move(store));
}

}  // namespace vernier::storage
