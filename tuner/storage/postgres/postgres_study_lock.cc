#include "tuner/storage/postgres/postgres_study_lock.h"

#include <exception>
#include <utility>

#include "absl/strings/str_cat.h"
#include "pqxx/nontransaction"
#include "spdlog/spdlog.h"
#include "text/absl_view.h"
#include "tuner/storage/postgres/postgres_error.h"
#include "tuner/storage/transient_error.h"

namespace vernier::storage {

absl::StatusOr<std::unique_ptr<PostgresStudyLock>> PostgresStudyLock::Acquire(
    PostgresConnectionPool::Lease lock_connection, std::string_view study_name) {
  try {
    pqxx::nontransaction session(*lock_connection);
    session.exec_prepared("lock_study", kVernierStudyLocks, std::string(study_name));
  } catch (const std::exception& error) {
    // A session whose lock request failed holds nothing; one that broke is
    // closed when the lease ends.
    absl::Status status =
        PostgresError(error, absl::StrCat("locking study \"", text::AbslView(study_name), "\""));
    if (absl::IsDeadlineExceeded(status)) {
      return absl::UnavailableError(absl::StrCat(
          "study \"", text::AbslView(study_name),
          "\" stayed locked by another server's suggestion past the lock timeout; try again"));
    }
    // A lost connection stays transient (the server restarting).
    return IsTransientStoreError(status) ? MarkTransient(absl::UnavailableError(status.message()))
                                         : absl::UnavailableError(status.message());
  }
  return std::unique_ptr<PostgresStudyLock>(
      new PostgresStudyLock(std::move(lock_connection), std::string(study_name)));
}

PostgresStudyLock::PostgresStudyLock(PostgresConnectionPool::Lease connection,
                                     std::string study_name)
    : connection_(std::move(connection)), study_name_(std::move(study_name)) {}

PostgresStudyLock::~PostgresStudyLock() {
  try {
    pqxx::nontransaction session(*connection_);
    const bool held =
        session.exec_prepared("unlock_study", kVernierStudyLocks, study_name_)[0][0].as<bool>();
    if (!held) {
      spdlog::warn("study={} lost its PostgreSQL advisory lock before releasing it", study_name_);
    }
  } catch (const std::exception& error) {
    // Either the session is gone, and the server dropped the lock with it,
    // or its state is unknown: closing it drops any lock it still holds.
    spdlog::warn("study={} releasing the PostgreSQL advisory lock failed: {}", study_name_,
                 error.what());
    connection_.Discard();
  }
}

}  // namespace vernier::storage
