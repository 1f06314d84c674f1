#ifndef VERNIER_TESTS_SUPPORT_TEST_DATABASE_H_
#define VERNIER_TESTS_SUPPORT_TEST_DATABASE_H_

#include <optional>
#include <string>

namespace vernier::testing {

// The stores a real `vernier serve` can run on.
enum class StoreKind { kSqlite, kPostgres };

// "SQLite" or "PostgreSQL": for test names and messages.
std::string StoreKindName(StoreKind kind);

// VERNIER_TEST_POSTGRES_URL (scripts/test.sh starts a server and exports
// it), or nothing when it is unset or empty.
std::optional<std::string> TestPostgresUrl();

// Why a PostgreSQL test cannot run here; for GTEST_SKIP.
std::string PostgresSkipReason();

// A database of its own for one test, as the `--db` value of
// `vernier serve`: a SQLite file under `dir`, or a fresh database created on
// the PostgreSQL server of VERNIER_TEST_POSTGRES_URL and dropped by the
// destructor. Construct it only where the store is available.
class TestDatabase {
 public:
  TestDatabase(StoreKind kind, const std::string& dir);
  ~TestDatabase();
  TestDatabase(const TestDatabase&) = delete;
  TestDatabase& operator=(const TestDatabase&) = delete;

  StoreKind kind() const { return kind_; }
  const std::string& url() const { return url_; }
  // The SQLite file; empty for PostgreSQL.
  const std::string& sqlite_path() const { return sqlite_path_; }

 private:
  StoreKind kind_;
  std::string url_;
  std::string sqlite_path_;
  std::string admin_url_;
  std::string postgres_database_;
};

// `url` (postgresql://USER@HOST:PORT/DB?OPTIONS) naming `database` instead.
std::string WithPostgresDatabase(const std::string& url, const std::string& database);

}  // namespace vernier::testing

#endif  // VERNIER_TESTS_SUPPORT_TEST_DATABASE_H_
