#include "tuner/storage/sqlite/sqlite_connection.h"

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/tuner/storage/scoped_temp_dir.h"
#include "tests/tuner/storage/storage_test_matchers.h"
#include "tuner/storage/sqlite/sqlite_connection_pool.h"
#include "tuner/storage/sqlite/sqlite_error.h"

namespace vernier::storage::testing {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

class SqliteConnectionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<SqliteConnection>> connection =
        SqliteConnection::Open(dir_.File("test.db"), absl::Seconds(1));
    ASSERT_THAT(connection, IsOk());
    connection_ = *std::move(connection);
  }

  ScopedTempDir dir_;
  std::unique_ptr<SqliteConnection> connection_;
};

TEST_F(SqliteConnectionTest, IsConfiguredForDurability) {
  for (const auto& [pragma, expected] : std::vector<std::pair<std::string, int64_t>>{
           {"PRAGMA synchronous", 2}, {"PRAGMA foreign_keys", 1}, {"PRAGMA busy_timeout", 1000}}) {
    absl::StatusOr<SqliteStatement> statement = connection_->Prepare(pragma);
    ASSERT_THAT(statement, IsOk());
    absl::StatusOr<bool> has_row = statement->Step();
    ASSERT_THAT(has_row, IsOk());
    ASSERT_TRUE(*has_row);
    EXPECT_EQ(statement->ColumnInt64(0), expected) << pragma;
  }
  absl::StatusOr<SqliteStatement> journal = connection_->Prepare("PRAGMA journal_mode");
  ASSERT_THAT(journal, IsOk());
  ASSERT_THAT(journal->Step(), IsOk());
  EXPECT_EQ(journal->ColumnText(0), "wal");
}

TEST_F(SqliteConnectionTest, CachedStatementsStartCleanForTheNextBorrower) {
  ASSERT_THAT(connection_->Execute("CREATE TABLE t (k TEXT, v BLOB); "
                                   "INSERT INTO t VALUES ('a', X'0001'), ('b', X'');"),
              IsOk());
  for (const std::string key : {"a", "b", "a"}) {
    absl::StatusOr<SqliteStatement> select = connection_->Prepare("SELECT v FROM t WHERE k = ?");
    ASSERT_THAT(select, IsOk());
    select->BindText(1, key);
    absl::StatusOr<bool> has_row = select->Step();
    ASSERT_THAT(has_row, IsOk());
    ASSERT_TRUE(*has_row);
    EXPECT_EQ(select->ColumnBlob(0), key == "a" ? std::string("\0\1", 2) : std::string());
    // Left mid-result on purpose: the next Prepare must still work.
  }
}

TEST_F(SqliteConnectionTest, EmptyBlobIsStoredAsABlobNotNull) {
  ASSERT_THAT(connection_->Execute("CREATE TABLE t (v BLOB NOT NULL)"), IsOk());
  absl::StatusOr<SqliteStatement> insert = connection_->Prepare("INSERT INTO t VALUES (?)");
  ASSERT_THAT(insert, IsOk());
  EXPECT_THAT(insert->BindBlob(1, "").Run(), IsOk());
}

TEST_F(SqliteConnectionTest, SyntaxErrorNamesTheStatement) {
  EXPECT_THAT(connection_->Prepare("SELEKT 1"),
              StatusIs(absl::StatusCode::kInternal,
                       AllOf(HasSubstr("test.db"), HasSubstr("preparing `SELEKT 1`"),
                             HasSubstr("syntax error"))));
  EXPECT_THAT(connection_->Execute("DROP TABLE missing"),
              StatusIs(absl::StatusCode::kInternal, AllOf(HasSubstr("running `DROP TABLE missing`"),
                                                          HasSubstr("no such table"))));
}

TEST_F(SqliteConnectionTest, BindingErrorIsReportedByStep) {
  absl::StatusOr<SqliteStatement> select = connection_->Prepare("SELECT ?");
  ASSERT_THAT(select, IsOk());
  select->BindInt64(3, 1).BindText(1, "ignored after the first error");
  EXPECT_THAT(select->Step(), StatusIs(absl::StatusCode::kInternal,
                                       AllOf(HasSubstr("binding #3"), HasSubstr("SELECT ?"))));
}

TEST_F(SqliteConnectionTest, ConstraintViolationIsInternalAndNotBusy) {
  ASSERT_THAT(connection_->Execute("CREATE TABLE t (k TEXT PRIMARY KEY)"), IsOk());
  ASSERT_THAT(connection_->Execute("INSERT INTO t VALUES ('a')"), IsOk());
  absl::Status status = connection_->Execute("INSERT INTO t VALUES ('a')");
  EXPECT_THAT(status, StatusIs(absl::StatusCode::kInternal, HasSubstr("UNIQUE constraint")));
  EXPECT_FALSE(IsSqliteBusy(status));
}

TEST_F(SqliteConnectionTest, LockedDatabaseIsMarkedBusy) {
  absl::StatusOr<std::unique_ptr<SqliteConnection>> other =
      SqliteConnection::Open(dir_.File("test.db"), absl::Milliseconds(10));
  ASSERT_THAT(other, IsOk());
  ASSERT_THAT(connection_->Execute("BEGIN IMMEDIATE"), IsOk());
  absl::Status status = (*other)->Execute("BEGIN IMMEDIATE");
  EXPECT_THAT(status, StatusIs(absl::StatusCode::kInternal, HasSubstr("database is locked")));
  EXPECT_TRUE(IsSqliteBusy(status));
  EXPECT_FALSE(IsSqliteBusy(absl::UnavailableError("database is locked")));
  ASSERT_THAT(connection_->Execute("ROLLBACK"), IsOk());
}

TEST_F(SqliteConnectionTest, ChangesCountsTheLastStatementsRows) {
  ASSERT_THAT(connection_->Execute("CREATE TABLE t (k INTEGER); "
                                   "INSERT INTO t VALUES (1), (2), (3);"),
              IsOk());
  ASSERT_THAT(connection_->Execute("DELETE FROM t WHERE k > 1"), IsOk());
  EXPECT_EQ(connection_->Changes(), 2);
  EXPECT_FALSE(connection_->InTransaction());
  ASSERT_THAT(connection_->Execute("BEGIN"), IsOk());
  EXPECT_TRUE(connection_->InTransaction());
  ASSERT_THAT(connection_->Execute("COMMIT"), IsOk());
}

TEST(SqliteConnectionPoolTest, ReusesReturnedConnections) {
  ScopedTempDir dir;
  SqliteConnectionPool pool(dir.File("pool.db"), 3, absl::Seconds(1));
  EXPECT_EQ(pool.open_connections(), 0);
  {
    absl::StatusOr<SqliteConnectionPool::Lease> first = pool.Acquire();
    ASSERT_THAT(first, IsOk());
    absl::StatusOr<SqliteConnectionPool::Lease> second = pool.Acquire();
    ASSERT_THAT(second, IsOk());
    EXPECT_NE(&**first, &**second);
    EXPECT_EQ(pool.open_connections(), 2);
  }
  absl::StatusOr<SqliteConnectionPool::Lease> again = pool.Acquire();
  ASSERT_THAT(again, IsOk());
  EXPECT_EQ(pool.open_connections(), 2);
}

TEST(SqliteConnectionPoolTest, ClosesAConnectionReturnedInsideATransaction) {
  ScopedTempDir dir;
  SqliteConnectionPool pool(dir.File("pool.db"), 2, absl::Seconds(1));
  {
    absl::StatusOr<SqliteConnectionPool::Lease> lease = pool.Acquire();
    ASSERT_THAT(lease, IsOk());
    ASSERT_THAT((*lease)->Execute("BEGIN IMMEDIATE"), IsOk());
  }
  EXPECT_EQ(pool.open_connections(), 0);
  // Its write lock went with it.
  absl::StatusOr<SqliteConnectionPool::Lease> lease = pool.Acquire();
  ASSERT_THAT(lease, IsOk());
  EXPECT_THAT((*lease)->Execute("BEGIN IMMEDIATE; COMMIT;"), IsOk());
}

TEST(SqliteConnectionPoolTest, OpenFailureIsReturnedAndFreesTheSlot) {
  ScopedTempDir dir;
  const std::string path = dir.File("missing_directory/pool.db");
  SqliteConnectionPool pool(path, 1, absl::Seconds(1));
  EXPECT_THAT(pool.Acquire(), StatusIs(absl::StatusCode::kFailedPrecondition,
                                       AllOf(HasSubstr(path), HasSubstr("unable to open"))));
  EXPECT_EQ(pool.open_connections(), 0);
  // The one slot is free again: a second failure is reported, not a hang.
  EXPECT_THAT(pool.Acquire(), StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr(path)));
}

}  // namespace
}  // namespace vernier::storage::testing
