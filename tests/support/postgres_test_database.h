#ifndef VERNIER_TESTS_SUPPORT_POSTGRES_TEST_DATABASE_H_
#define VERNIER_TESTS_SUPPORT_POSTGRES_TEST_DATABASE_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace vernier::testing {

// The environment variable naming the PostgreSQL server tests run against:
// scripts/test.sh starts one (scripts/postgres-up.sh) and sets it to its URL.
inline constexpr char kPostgresUrlVariable[] = "VERNIER_TEST_POSTGRES_URL";

// What tests that need PostgreSQL say when they skip for want of a server.
inline constexpr char kNoPostgresServer[] =
    "VERNIER_TEST_POSTGRES_URL is not set, so there is no PostgreSQL server to test against; "
    "run scripts/test.sh, which starts one for the tests (or scripts/postgres-up.sh and export "
    "VERNIER_TEST_POSTGRES_URL=$(cat DIR/url))";

// The URL in VERNIER_TEST_POSTGRES_URL, or "" when it is not set.
std::string PostgresTestServerUrl();

// A new, empty database on the test server, dropped (with any sessions still
// on it) when the object goes, so that tests running in parallel never share
// one. Usage:
//
//   if (PostgresTestServerUrl().empty()) GTEST_SKIP() << kNoPostgresServer;
//   absl::StatusOr<std::unique_ptr<PostgresTestDatabase>> db =
//       PostgresTestDatabase::Create();
//   ... vernier serve --db (*db)->url() ...
class PostgresTestDatabase {
 public:
  // FAILED_PRECONDITION when VERNIER_TEST_POSTGRES_URL is not set;
  // UNAVAILABLE when the server cannot create the database.
  static absl::StatusOr<std::unique_ptr<PostgresTestDatabase>> Create();
  ~PostgresTestDatabase();
  PostgresTestDatabase(const PostgresTestDatabase&) = delete;
  PostgresTestDatabase& operator=(const PostgresTestDatabase&) = delete;

  // postgresql://vernier@127.0.0.1:PORT/NAME
  const std::string& url() const { return url_; }
  const std::string& name() const { return name_; }

  // Runs SQL on a connection of its own to this database, as another program
  // would.
  absl::Status Execute(const std::string& sql) const;
  // The first column of the first row of `sql`, as text ("NULL" for null).
  absl::StatusOr<std::string> QueryValue(const std::string& sql) const;
  // Ends every other session on this database (pg_terminate_backend): what a
  // server restart does to a store's connections.
  absl::Status TerminateOtherSessions() const;

 private:
  PostgresTestDatabase(std::string server_url, std::string name, std::string url);

  std::string server_url_;
  std::string name_;
  std::string url_;
};

}  // namespace vernier::testing

#endif  // VERNIER_TESTS_SUPPORT_POSTGRES_TEST_DATABASE_H_
