#include "tests/support/test_database.h"

#include <stdexcept>

namespace vernier::testing {

std::string StoreKindName(StoreKind kind) {
  return kind == StoreKind::kSqlite ? "SQLite" : "PostgreSQL";
}

bool StoreAvailable(StoreKind kind) {
  return kind == StoreKind::kSqlite || !PostgresTestServerUrl().empty();
}

TestDatabase::TestDatabase(StoreKind kind, const std::string& dir) : kind_(kind) {
  if (kind == StoreKind::kSqlite) {
    sqlite_path_ = dir + "/vernier.db";
    url_ = "sqlite:" + sqlite_path_;
    return;
  }
  absl::StatusOr<std::unique_ptr<PostgresTestDatabase>> database = PostgresTestDatabase::Create();
  if (!database.ok()) throw std::runtime_error(std::string(database.status().message()));
  postgres_ = *std::move(database);
  url_ = postgres_->url();
}

}  // namespace vernier::testing
