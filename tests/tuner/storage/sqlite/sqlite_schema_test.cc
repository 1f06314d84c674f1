#include "tuner/storage/sqlite/sqlite_schema.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/tuner/storage/scoped_temp_dir.h"
#include "tests/tuner/storage/storage_test_matchers.h"
#include "tuner/storage/sqlite/sqlite_connection.h"

namespace vernier::storage::testing {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

class SqliteSchemaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<SqliteConnection>> connection =
        SqliteConnection::Open(dir_.File("schema.db"), absl::Seconds(1));
    ASSERT_THAT(connection, IsOk());
    connection_ = *std::move(connection);
  }

  // Whether a table of that name exists.
  bool HasTable(const std::string& name) {
    absl::StatusOr<SqliteStatement> select =
        connection_->Prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?");
    EXPECT_THAT(select, IsOk());
    if (!select.ok()) return false;
    select->BindText(1, name);
    absl::StatusOr<bool> found = select->Step();
    EXPECT_THAT(found, IsOk());
    return found.ok() && *found;
  }

  int64_t StoredVersion() {
    absl::StatusOr<SqliteStatement> select =
        connection_->Prepare("SELECT version FROM schema_version");
    EXPECT_THAT(select, IsOk());
    if (!select.ok()) return -1;
    absl::StatusOr<bool> found = select->Step();
    EXPECT_THAT(found, IsOk());
    return found.ok() && *found ? select->ColumnInt64(0) : -1;
  }

  ScopedTempDir dir_;
  std::unique_ptr<SqliteConnection> connection_;
};

TEST_F(SqliteSchemaTest, AppliesOnlyTheMigrationsTheDatabaseLacks) {
  const std::vector<std::string_view> one = {"CREATE TABLE first (x INTEGER)"};
  absl::StatusOr<int> previous = MigrateSqliteSchema(*connection_, one);
  ASSERT_THAT(previous, IsOk());
  EXPECT_EQ(*previous, 0);
  EXPECT_EQ(StoredVersion(), 1);

  // Running the first script again would fail: "table first already exists".
  const std::vector<std::string_view> two = {"CREATE TABLE first (x INTEGER)",
                                             "CREATE TABLE second (y TEXT)"};
  previous = MigrateSqliteSchema(*connection_, two);
  ASSERT_THAT(previous, IsOk());
  EXPECT_EQ(*previous, 1);
  EXPECT_TRUE(HasTable("second"));
  EXPECT_EQ(StoredVersion(), 2);

  previous = MigrateSqliteSchema(*connection_, two);
  ASSERT_THAT(previous, IsOk());
  EXPECT_EQ(*previous, 2);
}

TEST_F(SqliteSchemaTest, AFailingMigrationLeavesNothingBehind) {
  ASSERT_THAT(MigrateSqliteSchema(*connection_,
                                  std::vector<std::string_view>{"CREATE TABLE first (x INTEGER)"}),
              IsOk());
  const std::vector<std::string_view> broken = {
      "CREATE TABLE first (x INTEGER)",
      "CREATE TABLE second (y TEXT); CREATE TABLE third (",
  };
  EXPECT_THAT(MigrateSqliteSchema(*connection_, broken),
              StatusIs(absl::StatusCode::kInternal,
                       AllOf(HasSubstr("schema.db"), HasSubstr("to schema version 2"))));
  EXPECT_FALSE(HasTable("second"));
  EXPECT_EQ(StoredVersion(), 1);
  EXPECT_FALSE(connection_->InTransaction());
}

TEST_F(SqliteSchemaTest, RefusesANewerDatabaseNamingBothVersions) {
  const std::vector<std::string_view> two = {"CREATE TABLE first (x INTEGER)",
                                             "CREATE TABLE second (y TEXT)"};
  ASSERT_THAT(MigrateSqliteSchema(*connection_, two), IsOk());
  EXPECT_THAT(MigrateSqliteSchema(*connection_, std::span(two).first(1)),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       AllOf(HasSubstr("schema version 2"), HasSubstr("newer than version 1"))));
  EXPECT_EQ(StoredVersion(), 2);
  EXPECT_FALSE(connection_->InTransaction());
}

TEST_F(SqliteSchemaTest, TheRealSchemaBuildsEveryTable) {
  absl::StatusOr<int> previous = MigrateSqliteSchema(*connection_, SqliteSchemaMigrations());
  ASSERT_THAT(previous, IsOk());
  EXPECT_EQ(*previous, 0);
  for (const char* table :
       {"schema_version", "studies", "trials", "measurements", "jobs", "trial_runs",
        "job_leases", "servers", "agent_contacts", "replica_exits", "api_tokens"}) {
    EXPECT_TRUE(HasTable(table)) << table;
  }
  EXPECT_EQ(StoredVersion(), static_cast<int64_t>(SqliteSchemaMigrations().size()));
}

}  // namespace
}  // namespace vernier::storage::testing
