#include "tests/support/test_database.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <pqxx/pqxx>
#include <random>
#include <stdexcept>

namespace vernier::testing {

std::string StoreKindName(StoreKind kind) {
  return kind == StoreKind::kSqlite ? "SQLite" : "PostgreSQL";
}

std::optional<std::string> TestPostgresUrl() {
  const char* url = std::getenv("VERNIER_TEST_POSTGRES_URL");
  if (url == nullptr || *url == '\0') return std::nullopt;
  return std::string(url);
}

std::string PostgresSkipReason() {
  return "VERNIER_TEST_POSTGRES_URL is not set, so the PostgreSQL variant is skipped; "
         "scripts/test.sh starts a server and sets it, or start one with "
         "scripts/postgres-up.sh and export the URL it prints";
}

std::string WithPostgresDatabase(const std::string& url, const std::string& database) {
  const size_t scheme_end = url.find("://");
  const size_t authority = scheme_end == std::string::npos ? 0 : scheme_end + 3;
  const size_t options = url.find('?', authority);
  const size_t path = url.find('/', authority);
  const size_t authority_end =
      path != std::string::npos && (options == std::string::npos || path < options) ? path
                                                                                    : options;
  std::string result = url.substr(0, authority_end) + "/" + database;
  if (options != std::string::npos) result += url.substr(options);
  return result;
}

TestDatabase::TestDatabase(StoreKind kind, const std::string& dir) : kind_(kind) {
  if (kind == StoreKind::kSqlite) {
    sqlite_path_ = dir + "/vernier.db";
    url_ = "sqlite:" + sqlite_path_;
    return;
  }
  const std::optional<std::string> server = TestPostgresUrl();
  if (!server.has_value()) throw std::runtime_error(PostgresSkipReason());
  static std::atomic<int> counter{0};
  postgres_database_ = "vernier_test_" + std::to_string(getpid()) + "_" +
                       std::to_string(counter++) + "_" + std::to_string(std::random_device{}());
  admin_url_ = *server;
  pqxx::connection admin(admin_url_);
  pqxx::nontransaction statement(admin);
  statement.exec("CREATE DATABASE " + statement.quote_name(postgres_database_));
  url_ = WithPostgresDatabase(admin_url_, postgres_database_);
}

TestDatabase::~TestDatabase() {
  if (postgres_database_.empty()) return;
  try {
    pqxx::connection admin(admin_url_);
    pqxx::nontransaction statement(admin);
    // FORCE: a killed server's sessions may not have ended yet.
    statement.exec("DROP DATABASE IF EXISTS " + statement.quote_name(postgres_database_) +
                   " WITH (FORCE)");
  } catch (const std::exception&) {
    // A leftover database only costs disk in the throwaway test server.
  }
}

}  // namespace vernier::testing
