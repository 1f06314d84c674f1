#include "tuner/storage/postgres/postgres_connection_pool.h"

#include <exception>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "spdlog/spdlog.h"
#include "tuner/storage/postgres/postgres_error.h"

namespace vernier::storage {
namespace {

absl::StatusOr<std::unique_ptr<pqxx::connection>> Connect(
    const std::string& url, const std::string& description,
    const PostgresConnectionPool::Setup& setup) {
  try {
    // A connection that broke is never used again (the pool closes it), so
    // libpqxx 6's reactivation of broken connections never comes into play.
    auto connection = std::make_unique<pqxx::connection>(url);
    if (setup) setup(*connection);
    return connection;
  } catch (const std::exception& error) {
    return PostgresError(error, absl::StrCat("connecting to ", description));
  }
}

}  // namespace

PostgresConnectionPool::PostgresConnectionPool(std::string url, const std::string& description,
                                               int max_connections, absl::Duration acquire_timeout,
                                               Setup setup)
    : ConnectionPool<pqxx::connection>(
          absl::StrCat("PostgreSQL store ", description), max_connections, acquire_timeout,
          [url = std::move(url), description, setup = std::move(setup)] {
            return Connect(url, description, setup);
          },
          [description](pqxx::connection& connection) {
            if (connection.is_open()) return true;
            spdlog::warn("closing a connection to PostgreSQL store {} whose session is lost",
                         description);
            return false;
          }) {}

}  // namespace vernier::storage
