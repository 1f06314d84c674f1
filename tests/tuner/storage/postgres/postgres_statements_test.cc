#include "tuner/storage/postgres/postgres_statements.h"

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "pqxx/connection"
#include "pqxx/nontransaction"
#include "pqxx/result"
#include "tests/support/postgres_test_database.h"
#include "tests/tuner/storage/storage_test_matchers.h"
#include "tuner/storage/postgres/postgres_schema.h"

namespace vernier::storage::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::vernier::testing::kNoPostgresServer;
using ::vernier::testing::PostgresTestDatabase;
using ::vernier::testing::PostgresTestServerUrl;

// The plan a connection caches for a batch of measurements, whatever the
// parameters: the generic plan.
constexpr char kExplainGenericBatchPlan[] =
    "EXPLAIN EXECUTE append_measurements("
    "'{s}'::text[], '{1}'::bigint[], '{1}'::bigint[], '{0}'::bigint[], "
    "ARRAY['\\x00'::bytea], '{}'::integer[])";

std::string Explain(pqxx::connection& connection) {
  // libpqxx sends a statement to the server on first use.
  connection.prepare_now("append_measurements");
  pqxx::nontransaction session(connection);
  session.exec("SET plan_cache_mode = force_generic_plan");
  std::string plan;
  for (const pqxx::row& row : session.exec(kExplainGenericBatchPlan)) {
    plan += row[0].as<std::string>();
    plan += "\n";
  }
  return plan;
}

// A new database as a store leaves it after its first two thousand trials:
// migrated, the rows there, and no statistics yet (autovacuum has not run).
// (Since schema version 6, whose revision columns make a trial row wider,
// an ordinary connection's generic plan scans every trial up to about 3,000
// trials, and finds them by key at 5,000.)
// Autovacuum is kept off the trials table so that it cannot analyse it while
// a test runs: the server's launcher visits a new database within a second or
// two when many exist, as they do while the suite runs.
class PostgresStatementsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (PostgresTestServerUrl().empty()) GTEST_SKIP() << kNoPostgresServer;
    absl::StatusOr<std::unique_ptr<PostgresTestDatabase>> database = PostgresTestDatabase::Create();
    ASSERT_THAT(database, IsOk());
    database_ = *std::move(database);
    pqxx::connection connection(database_->url());
    ASSERT_THAT(MigratePostgresSchema(connection, PostgresSchemaMigrations(), database_->name()),
                IsOk());
    ASSERT_THAT(database_->Execute("ALTER TABLE trials SET (autovacuum_enabled = false)"), IsOk());
    ASSERT_THAT(database_->Execute("INSERT INTO studies (name, state, create_time_micros, body) "
                                   "VALUES ('s', 1, 0, '')"),
                IsOk());
    ASSERT_THAT(database_->Execute("INSERT INTO trials (study_name, id, state, client_id, body) "
                                   "SELECT 's', id, 2, '', '\\x00' "
                                   "FROM generate_series(1, 2000) AS id"),
                IsOk());
  }

  std::unique_ptr<PostgresTestDatabase> database_;
};

TEST_F(PostgresStatementsTest, MeasurementBatchesFindTrialsByKeyBeforeAnyStatistics) {
  pqxx::connection connection(database_->url());
  PreparePostgresIndexLookupSession(connection);

  const std::string plan = Explain(connection);

  EXPECT_THAT(plan, HasSubstr("Index Scan using trials_pkey on trials"));
  EXPECT_THAT(plan, Not(HasSubstr("Seq Scan on trials")));
  EXPECT_THAT(plan, Not(HasSubstr("Hash Join")));
}

// Why the batch connection is set up apart: planned as any statement is, the
// same batch scans every trial.
TEST_F(PostgresStatementsTest, AnOrdinaryConnectionPlansTheBatchAsAScanOfEveryTrial) {
  pqxx::connection connection(database_->url());
  PreparePostgresStatements(connection);

  EXPECT_THAT(Explain(connection), HasSubstr("Seq Scan on trials"));
}

// ListTrialChanges' statement on its session, for a study the table's
// statistics have never seen (as every new study is until autovacuum runs):
// the revision indexes, then trials by key, in the session's own process.
TEST_F(PostgresStatementsTest, ChangeLookupsReadTheRevisionIndexesThenTrialsByKey) {
  pqxx::connection connection(database_->url());
  PreparePostgresIndexLookupSession(connection);
  connection.prepare_now("list_trial_changes");
  pqxx::nontransaction session(connection);
  session.exec("SET plan_cache_mode = force_generic_plan");
  std::string plan;
  for (const pqxx::row& row : session.exec("EXPLAIN EXECUTE list_trial_changes('new', 7)")) {
    plan += row[0].as<std::string>();
    plan += "\n";
  }
  EXPECT_THAT(plan, HasSubstr("trials_by_revision"));
  EXPECT_THAT(plan, HasSubstr("measurements_by_revision"));
  EXPECT_THAT(plan, HasSubstr("Index Scan using trials_pkey on trials"));
  EXPECT_THAT(plan, Not(HasSubstr("Seq Scan")));
  EXPECT_THAT(plan, Not(HasSubstr("Gather")));
  // Neither parallel workers nor a compiled plan, which would cost more
  // than the lookups on every call once the tables are large.
  EXPECT_EQ(session.exec("SHOW max_parallel_workers_per_gather")[0][0].as<std::string>(), "0");
  EXPECT_EQ(session.exec("SHOW jit")[0][0].as<std::string>(), "off");
}

TEST_F(PostgresStatementsTest, LockSessionsWaitAtMostTheLockTimeout) {
  pqxx::connection connection(database_->url());
  PreparePostgresLockSession(connection, absl::Milliseconds(1500));

  pqxx::nontransaction session(connection);
  EXPECT_EQ(session.exec("SHOW lock_timeout")[0][0].as<std::string>(), "1500ms");
}

}  // namespace
}  // namespace vernier::storage::testing
