#include "tests/support/postgres_test_database.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <exception>
#include <random>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "pqxx/connection"
#include "pqxx/nontransaction"
#include "tuner/storage/postgres/postgres_url.h"

namespace vernier::testing {
namespace {

// Runs `sql` outside a transaction (CREATE/DROP DATABASE need that).
absl::Status ExecuteOn(const std::string& url, const std::string& sql) {
  try {
    pqxx::connection connection(url);
    pqxx::nontransaction session(connection);
    session.exec(sql);
    return absl::OkStatus();
  } catch (const std::exception& error) {
    return absl::UnavailableError(absl::StrCat("`", sql, "` on ", storage::RedactPostgresUrl(url),
                                               " failed: ", error.what()));
  }
}

}  // namespace

std::string PostgresTestServerUrl() {
  const char* url = std::getenv(kPostgresUrlVariable);
  return url != nullptr ? url : "";
}

absl::StatusOr<std::unique_ptr<PostgresTestDatabase>> PostgresTestDatabase::Create() {
  const std::string server_url = PostgresTestServerUrl();
  if (server_url.empty()) return absl::FailedPreconditionError(kNoPostgresServer);
  static std::atomic<int> counter = 0;
  const std::string name =
      absl::StrFormat("vernier_test_%d_%d_%08x", getpid(), counter++, std::random_device{}());
  if (absl::Status status = ExecuteOn(server_url, absl::StrCat("CREATE DATABASE ", name));
      !status.ok()) {
    return status;
  }
  return std::unique_ptr<PostgresTestDatabase>(
      new PostgresTestDatabase(server_url, name, storage::WithDatabase(server_url, name)));
}

PostgresTestDatabase::PostgresTestDatabase(std::string server_url, std::string name,
                                           std::string url)
    : server_url_(std::move(server_url)), name_(std::move(name)), url_(std::move(url)) {}

PostgresTestDatabase::~PostgresTestDatabase() {
  // FORCE ends sessions a test left open (a killed server's, say).
  if (absl::Status status =
          ExecuteOn(server_url_, absl::StrCat("DROP DATABASE IF EXISTS ", name_, " WITH (FORCE)"));
      !status.ok()) {
    fprintf(stderr, "warning: %s\n", std::string(status.message()).c_str());
  }
}

absl::Status PostgresTestDatabase::Execute(const std::string& sql) const {
  return ExecuteOn(url_, sql);
}

absl::StatusOr<std::string> PostgresTestDatabase::QueryValue(const std::string& sql) const {
  try {
    pqxx::connection connection(url_);
    pqxx::nontransaction session(connection);
    const pqxx::result rows = session.exec(sql);
    if (rows.empty() || rows[0].empty())
      return absl::NotFoundError(absl::StrCat("`", sql, "` returned no value"));
    return rows[0][0].is_null() ? std::string("NULL") : rows[0][0].as<std::string>();
  } catch (const std::exception& error) {
    return absl::UnavailableError(absl::StrCat("`", sql, "` failed: ", error.what()));
  }
}

absl::Status PostgresTestDatabase::TerminateOtherSessions() const {
  return Execute(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
      "WHERE datname = current_database() AND pid <> pg_backend_pid()");
}

}  // namespace vernier::testing
