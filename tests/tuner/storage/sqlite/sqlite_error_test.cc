#include "tuner/storage/sqlite/sqlite_error.h"

#include <sqlite3.h>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/log_capture.h"
#include "tuner/storage/transient_error.h"

namespace vernier::storage {
namespace {

using ::testing::HasSubstr;

// A full disk was INTERNAL and left no line in the server's log.
TEST(SqliteErrorTest, AFullDiskIsResourceExhaustedAndLogged) {
  vernier::testing::LogCapture log;
  const absl::Status status = SqliteError(nullptr, SQLITE_FULL, "adding measurements");
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted) << status;
  EXPECT_THAT(status.message(), HasSubstr("adding measurements failed: database or disk is full"));
  EXPECT_THAT(log.Text(), HasSubstr("adding measurements failed: database or disk is full"));
  // Space comes back: what needs the store waits for it.
  EXPECT_TRUE(IsTransientStoreError(status));
}

TEST(SqliteErrorTest, AnIoErrorIsInternalAndLogged) {
  vernier::testing::LogCapture log;
  const absl::Status status = SqliteError(nullptr, SQLITE_IOERR_WRITE, "committing");
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal) << status;
  EXPECT_THAT(log.Text(), HasSubstr("committing failed: disk I/O error"));
  EXPECT_TRUE(IsTransientStoreError(status));
}

TEST(SqliteErrorTest, ABusyDatabaseIsTransient) {
  const absl::Status status = SqliteError(nullptr, SQLITE_BUSY, "committing");
  EXPECT_TRUE(IsSqliteBusy(status));
  EXPECT_TRUE(IsTransientStoreError(status));
}

TEST(SqliteErrorTest, AConstraintIsNotLoggedHere) {
  vernier::testing::LogCapture log;
  EXPECT_EQ(SqliteError(nullptr, SQLITE_CONSTRAINT, "inserting").code(),
            absl::StatusCode::kInternal);
  EXPECT_FALSE(IsTransientStoreError(SqliteError(nullptr, SQLITE_CONSTRAINT, "inserting")));
  EXPECT_EQ(log.Text(), "");
}

}  // namespace
}  // namespace vernier::storage
