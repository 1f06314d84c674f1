#include "tuner/storage/postgres/postgres_error.h"

#include <stdexcept>
#include <utility>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "pqxx/except"
#include "tests/support/log_capture.h"
#include "tests/tuner/storage/storage_test_matchers.h"
#include "tuner/storage/transient_error.h"

namespace vernier::storage::testing {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

constexpr char kDoing[] = "adding measurements to trial 3 of study \"s1\"";

TEST(PostgresErrorTest, ALostConnectionIsUnavailableAndRetryable) {
  const absl::Status status =
      PostgresError(pqxx::broken_connection("server closed the connection unexpectedly\n"), kDoing);
  EXPECT_THAT(status,
              StatusIs(absl::StatusCode::kUnavailable,
                       AllOf(HasSubstr(kDoing), HasSubstr("server closed the connection"))));
  EXPECT_TRUE(IsRetryablePostgresError(status));
  const absl::Status shutdown = PostgresError(
      pqxx::sql_error("terminating connection due to administrator command", "SELECT 1", "57P01"),
      kDoing);
  EXPECT_THAT(shutdown, StatusIs(absl::StatusCode::kUnavailable, HasSubstr("57P01")));
  EXPECT_TRUE(IsRetryablePostgresError(shutdown));
  // The store is away: jobs wait for it rather than fail.
  EXPECT_TRUE(IsTransientStoreError(status));
  EXPECT_TRUE(IsTransientStoreError(shutdown));
  for (const char* sqlstate : {"08006", "08001", "57P02", "57P03"}) {
    EXPECT_TRUE(IsTransientStoreError(PostgresError(
        pqxx::sql_error("the database system is starting up", "SELECT 1", sqlstate), kDoing)))
        << sqlstate;
  }
}

TEST(PostgresErrorTest, AMissingDatabaseIsFailedPreconditionNotALostConnection) {
  const absl::Status status = PostgresError(
      pqxx::broken_connection("connection to server at \"127.0.0.1\", port 5432 failed: FATAL:  "
                              "database \"tuning\" does not exist\n"),
      "connecting to postgresql://vernier@127.0.0.1:5432/tuning");
  EXPECT_THAT(status,
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       AllOf(HasSubstr("postgresql://vernier@127.0.0.1:5432/tuning"),
                             HasSubstr("database \"tuning\" does not exist"),
                             HasSubstr("port 5432"), HasSubstr("CREATE DATABASE \"tuning\""))));
  EXPECT_FALSE(IsRetryablePostgresError(status));
}

TEST(PostgresErrorTest, ConflictsAreAbortedAndRetryable) {
  for (const absl::Status& status :
       {PostgresError(pqxx::serialization_failure("could not serialize access"), kDoing),
        PostgresError(pqxx::deadlock_detected("deadlock detected"), kDoing),
        PostgresError(pqxx::sql_error("could not serialize access", "UPDATE", "40001"), kDoing)}) {
    EXPECT_THAT(status, StatusIs(absl::StatusCode::kAborted,
                                 AllOf(HasSubstr(kDoing), HasSubstr("concurrent transaction"))));
    EXPECT_TRUE(IsRetryablePostgresError(status));
    EXPECT_TRUE(IsTransientStoreError(status));
  }
}

TEST(PostgresErrorTest, AnUnknownCommitOutcomeIsUnavailableButNotRetried) {
  const absl::Status status = PostgresError(pqxx::in_doubt_error("lost during COMMIT"), kDoing);
  EXPECT_THAT(status, StatusIs(absl::StatusCode::kUnavailable,
                               AllOf(HasSubstr(kDoing), HasSubstr("unknown"))));
  EXPECT_FALSE(IsRetryablePostgresError(status));
  // Not run again here, but the store was away: what needs it waits.
  EXPECT_TRUE(IsTransientStoreError(status));
}

TEST(PostgresErrorTest, UniqueViolationsAreAlreadyExists) {
  const absl::Status status = PostgresError(
      pqxx::unique_violation("duplicate key value violates unique constraint \"studies_pkey\"",
                             "INSERT", "23505"),
      "creating study \"s1\"");
  EXPECT_THAT(status, StatusIs(absl::StatusCode::kAlreadyExists,
                               AllOf(HasSubstr("creating study \"s1\""), HasSubstr("studies_pkey"),
                                     HasSubstr("SQLSTATE 23505"))));
  EXPECT_FALSE(IsRetryablePostgresError(status));
}

TEST(PostgresErrorTest, AServerOutOfResourcesIsResourceExhaustedAndLogged) {
  const std::pair<const char*, const char*> cases[] = {
      {"53100", "disk space"}, {"53200", "memory"}, {"53300", "connections"}};
  for (const auto& [sqlstate, resource] : cases) {
    vernier::testing::LogCapture log;
    const absl::Status status = PostgresError(
        pqxx::sql_error("could not extend file: No space left on device", "INSERT", sqlstate),
        kDoing);
    EXPECT_THAT(status, StatusIs(absl::StatusCode::kResourceExhausted,
                                 AllOf(HasSubstr(kDoing), HasSubstr(resource),
                                       HasSubstr(absl::StrCat("SQLSTATE ", sqlstate)))));
    EXPECT_FALSE(IsRetryablePostgresError(status));
    EXPECT_TRUE(IsTransientStoreError(status));
    EXPECT_THAT(log.Text(), AllOf(HasSubstr(kDoing), HasSubstr(sqlstate)));
  }
}

TEST(PostgresErrorTest, TimeoutsAreDeadlineExceededAndTheRestInternal) {
  EXPECT_THAT(
      PostgresError(pqxx::sql_error("canceling statement due to lock timeout", "SELECT", "55P03"),
                    kDoing),
      StatusIs(absl::StatusCode::kDeadlineExceeded, HasSubstr("lock timeout")));
  const absl::Status internal = PostgresError(
      pqxx::sql_error("relation \"trials\" does not exist", "SELECT", "42P01"), kDoing);
  EXPECT_THAT(internal, StatusIs(absl::StatusCode::kInternal,
                                 AllOf(HasSubstr(kDoing), HasSubstr("SQLSTATE 42P01"))));
  EXPECT_FALSE(IsRetryablePostgresError(internal));
  // A missing table, a constraint, bad data: permanent.
  EXPECT_FALSE(IsTransientStoreError(internal));
  EXPECT_FALSE(IsTransientStoreError(
      PostgresError(pqxx::unique_violation("duplicate key value", "INSERT", "23505"), kDoing)));
  EXPECT_FALSE(IsTransientStoreError(PostgresError(
      pqxx::sql_error("invalid byte sequence for encoding", "INSERT", "22021"), kDoing)));
  EXPECT_FALSE(IsTransientStoreError(absl::UnavailableError("the caller's own")));
  EXPECT_THAT(PostgresError(std::runtime_error("bad_alloc"), kDoing),
              StatusIs(absl::StatusCode::kInternal, HasSubstr("bad_alloc")));
  // A caller's own status is never taken for a retryable failure.
  EXPECT_FALSE(IsRetryablePostgresError(absl::AbortedError("trial was handed out concurrently")));
}

}  // namespace
}  // namespace vernier::storage::testing
