#include "tuner/storage/postgres/postgres_error.h"

#include <string>
#include <utility>

#include "absl/strings/cord.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "pqxx/except"
#include "spdlog/spdlog.h"
#include "text/absl_view.h"
#include "tuner/storage/transient_error.h"

namespace vernier::storage {
namespace {

// A payload rather than a status code marks retryable failures, so that a
// mutator's own ABORTED or UNAVAILABLE is never mistaken for one.
constexpr absl::string_view kRetryablePayloadUrl = "type.vernier.dev/storage.PostgresRetryable";

std::string Message(const std::exception& error) {
  return std::string(absl::StripTrailingAsciiWhitespace(error.what()));
}

absl::Status Retryable(absl::Status status) {
  status.SetPayload(kRetryablePayloadUrl, absl::Cord("retryable"));
  return MarkTransient(std::move(status));
}

// SQLSTATE class 08 (connection exception) and the shutdown codes of class
// 57: the server went away under the statement.
bool IsConnectionLoss(const std::string& sqlstate) {
  return absl::StartsWith(sqlstate, "08") || sqlstate == "57P01" || sqlstate == "57P02" ||
         sqlstate == "57P03";
}

// The database a refused connection names in libpq's `FATAL:  database "X"
// does not exist` (the server is up; the database is not), or empty.
std::string MissingDatabase(std::string_view message) {
  constexpr std::string_view kBefore = "database \"";
  constexpr std::string_view kAfter = "\" does not exist";
  const size_t end = message.find(kAfter);
  if (end == std::string_view::npos) return "";
  const size_t begin = message.rfind(kBefore, end);
  if (begin == std::string_view::npos) return "";
  return std::string(message.substr(begin + kBefore.size(), end - begin - kBefore.size()));
}

// SQLSTATE class 53 (insufficient resources): what the server ran out of,
// or empty for another code.
std::string_view ExhaustedResource(const std::string& sqlstate) {
  if (sqlstate == "53100") return "disk space";
  if (sqlstate == "53200") return "memory";
  if (sqlstate == "53300") return "connections";
  if (absl::StartsWith(sqlstate, "53")) return "resources";
  return {};
}

}  // namespace

absl::Status PostgresError(const std::exception& error, std::string_view doing) {
  const std::string prefix = absl::StrCat("PostgreSQL store: ", text::AbslView(doing), " failed: ");
  if (dynamic_cast<const pqxx::in_doubt_error*>(&error) != nullptr) {
    return MarkTransient(absl::UnavailableError(absl::StrCat(
        prefix, "the connection broke during COMMIT, so whether it took effect is unknown: ",
        Message(error))));
  }
  if (dynamic_cast<const pqxx::broken_connection*>(&error) != nullptr) {
    if (const std::string database = MissingDatabase(Message(error)); !database.empty()) {
      return absl::FailedPreconditionError(
          absl::StrCat(prefix, "database \"", database,
                       "\" does not exist on the server (which is up and answered): create it, "
                       "e.g. CREATE DATABASE \"",
                       database,
                       "\" OWNER vernier ENCODING 'UTF8'; (see docs/postgresql.md), or name an "
                       "existing database in the URL: ",
                       Message(error)));
    }
    return Retryable(absl::UnavailableError(
        absl::StrCat(prefix, "lost the connection to the server: ", Message(error))));
  }
  if (dynamic_cast<const pqxx::serialization_failure*>(&error) != nullptr ||
      dynamic_cast<const pqxx::deadlock_detected*>(&error) != nullptr) {
    return Retryable(absl::AbortedError(
        absl::StrCat(prefix, "conflicted with a concurrent transaction: ", Message(error))));
  }
  if (dynamic_cast<const pqxx::statement_completion_unknown*>(&error) != nullptr) {
    return MarkTransient(absl::UnavailableError(
        absl::StrCat(prefix, "whether the statement took effect is unknown: ", Message(error))));
  }
  const auto* sql = dynamic_cast<const pqxx::sql_error*>(&error);
  const std::string sqlstate = sql != nullptr ? sql->sqlstate() : "";
  const std::string detail = sqlstate.empty()
                                 ? Message(error)
                                 : absl::StrCat(Message(error), " (SQLSTATE ", sqlstate, ")");
  if (dynamic_cast<const pqxx::unique_violation*>(&error) != nullptr) {
    return absl::AlreadyExistsError(absl::StrCat(prefix, detail));
  }
  if (IsConnectionLoss(sqlstate)) {
    return Retryable(
        absl::UnavailableError(absl::StrCat(prefix, "the server ended the connection: ", detail)));
  }
  // 55P03 lock_not_available (lock_timeout), 57014 query_canceled
  // (statement_timeout).
  if (sqlstate == "55P03" || sqlstate == "57014") {
    return absl::DeadlineExceededError(absl::StrCat(prefix, detail));
  }
  if (sqlstate == "40001" || sqlstate == "40P01") {
    return Retryable(absl::AbortedError(
        absl::StrCat(prefix, "conflicted with a concurrent transaction: ", detail)));
  }
  if (const std::string_view resource = ExhaustedResource(sqlstate); !resource.empty()) {
    absl::Status status = absl::ResourceExhaustedError(absl::StrCat(
        prefix, "the database server is out of ", text::AbslView(resource), ": ", detail));
    spdlog::error("{}", std::string(status.message()));
    // Space, memory or connections come back: what needs the store waits.
    return MarkTransient(std::move(status));
  }
  return absl::InternalError(absl::StrCat(prefix, detail));
}

bool IsRetryablePostgresError(const absl::Status& status) {
  return status.GetPayload(kRetryablePayloadUrl).has_value();
}

}  // namespace vernier::storage
