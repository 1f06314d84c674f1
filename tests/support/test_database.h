#ifndef VERNIER_TESTS_SUPPORT_TEST_DATABASE_H_
#define VERNIER_TESTS_SUPPORT_TEST_DATABASE_H_

#include <memory>
#include <string>

#include "tests/support/postgres_test_database.h"

namespace vernier::testing {

// The stores a real `vernier serve` can run on.
enum class StoreKind { kSqlite, kPostgres };

// "SQLite" or "PostgreSQL": for test names and messages.
std::string StoreKindName(StoreKind kind);

// Whether tests can run on `kind` here: PostgreSQL needs
// VERNIER_TEST_POSTGRES_URL (kNoPostgresServer says how to get it).
bool StoreAvailable(StoreKind kind);

// A database of its own for one test or benchmark run, as the `--db` value
// of `vernier serve`: a SQLite file under `dir`, or a fresh database on the
// PostgreSQL test server (PostgresTestDatabase), dropped by the destructor.
// Throws when the store is not available.
class TestDatabase {
 public:
  TestDatabase(StoreKind kind, const std::string& dir);

  StoreKind kind() const { return kind_; }
  const std::string& url() const { return url_; }
  // The SQLite file; empty for PostgreSQL.
  const std::string& sqlite_path() const { return sqlite_path_; }
  // The PostgreSQL database; null for SQLite.
  const PostgresTestDatabase* postgres() const { return postgres_.get(); }

 private:
  StoreKind kind_;
  std::string url_;
  std::string sqlite_path_;
  std::unique_ptr<PostgresTestDatabase> postgres_;
};

}  // namespace vernier::testing

#endif  // VERNIER_TESTS_SUPPORT_TEST_DATABASE_H_
