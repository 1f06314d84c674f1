#include "tuner/storage/postgres/postgres_storage.h"

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "pqxx/connection"
#include "pqxx/transaction"
#include "tests/support/postgres_test_database.h"
#include "tests/tuner/storage/job_coordination_conformance.h"
#include "tests/tuner/storage/storage_conformance.h"
#include "tests/tuner/storage/storage_test_matchers.h"
#include "tuner/storage/postgres/postgres_schema.h"
#include "tuner/storage/scoped_write_fence.h"
#include "tuner/storage/storage_factory.h"

namespace vernier::storage::testing {

using ::vernier::testing::kNoPostgresServer;
using ::vernier::testing::PostgresTestDatabase;
using ::vernier::testing::PostgresTestServerUrl;

// Each test gets a database of its own on the server scripts/test.sh starts,
// so tests run in parallel.
class PostgresStorageFactory {
 public:
  static std::string SkipReason() {
    return PostgresTestServerUrl().empty() ? kNoPostgresServer : "";
  }

  absl::StatusOr<std::unique_ptr<Storage>> Create() {
    absl::StatusOr<std::unique_ptr<PostgresTestDatabase>> database = PostgresTestDatabase::Create();
    if (!database.ok()) return database.status();
    database_ = *std::move(database);
    return Reopen();
  }

  absl::StatusOr<std::unique_ptr<Storage>> Reopen() {
    absl::StatusOr<std::unique_ptr<PostgresStorage>> store =
        PostgresStorage::Open(database_->url());
    if (!store.ok()) return store.status();
    return std::unique_ptr<Storage>(*std::move(store));
  }

 private:
  std::unique_ptr<PostgresTestDatabase> database_;
};

INSTANTIATE_TYPED_TEST_SUITE_P(Postgres, StorageConformanceTest,
                               ::testing::Types<PostgresStorageFactory>);
INSTANTIATE_TYPED_TEST_SUITE_P(Postgres, JobCoordinationConformanceTest,
                               ::testing::Types<PostgresStorageFactory>);

namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

v1::Study MakeStudy(const std::string& name) {
  v1::Study study;
  study.set_name(name);
  study.set_state(v1::Study::ACTIVE);
  study.mutable_create_time()->set_seconds(1'700'000'000);
  return study;
}

const std::string kSchemaVersion = std::to_string(PostgresSchemaMigrations().size());

class PostgresStorageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (PostgresTestServerUrl().empty()) GTEST_SKIP() << kNoPostgresServer;
    absl::StatusOr<std::unique_ptr<PostgresTestDatabase>> database = PostgresTestDatabase::Create();
    ASSERT_THAT(database, IsOk());
    database_ = *std::move(database);
  }

  std::unique_ptr<PostgresStorage> OpenOrDie(
      const PostgresStorageOptions& options = PostgresStorageOptions()) {
    absl::StatusOr<std::unique_ptr<PostgresStorage>> store =
        PostgresStorage::Open(database_->url(), options);
    EXPECT_THAT(store, IsOk());
    return store.ok() ? *std::move(store) : nullptr;
  }

  // Two servers on the database, the first with no time to retry in.
  std::pair<std::unique_ptr<PostgresStorage>, std::unique_ptr<PostgresStorage>>
  OpenImpatientAndPatient() {
    PostgresStorageOptions impatient;
    impatient.retry_timeout = absl::ZeroDuration();
    return {OpenOrDie(impatient), OpenOrDie()};
  }

  // Makes every INSERT into `table` fail as a duplicate key, as if other
  // servers kept taking the rows first; `false` undoes it.
  void RefuseInserts(const std::string& table, bool refuse = true) {
    if (!refuse) {
      ASSERT_THAT(database_->Execute("DROP TRIGGER always_taken ON " + table), IsOk());
      return;
    }
    ASSERT_THAT(database_->Execute(
                    "CREATE OR REPLACE FUNCTION always_taken() RETURNS trigger LANGUAGE plpgsql "
                    "AS $$ BEGIN RAISE unique_violation USING MESSAGE = 'taken'; END $$"),
                IsOk());
    ASSERT_THAT(database_->Execute("CREATE TRIGGER always_taken BEFORE INSERT ON " + table +
                                   " FOR EACH ROW EXECUTE PROCEDURE always_taken()"),
                IsOk());
  }

  std::unique_ptr<PostgresTestDatabase> database_;
};

TEST_F(PostgresStorageTest, RecordsTheSchemaVersionAndDoesNotMigrateTwice) {
  {
    std::unique_ptr<PostgresStorage> store = OpenOrDie();
    ASSERT_NE(store, nullptr);
    ASSERT_THAT(store->CreateStudy(MakeStudy("s1")), IsOk());
  }
  EXPECT_THAT(database_->QueryValue("SELECT version FROM schema_version"),
              IsOkAndHolds(kSchemaVersion));
  // A second migration run would fail on CREATE TABLE studies.
  std::unique_ptr<PostgresStorage> reopened = OpenOrDie();
  ASSERT_NE(reopened, nullptr);
  EXPECT_THAT(reopened->GetStudy("s1"), IsOk());
  EXPECT_THAT(database_->QueryValue("SELECT COUNT(*) FROM schema_version"), IsOkAndHolds("1"));
}

TEST_F(PostgresStorageTest, RefusesADatabaseWithANewerSchema) {
  ASSERT_NE(OpenOrDie(), nullptr);
  ASSERT_THAT(database_->Execute("UPDATE schema_version SET version = 99"), IsOk());
  EXPECT_THAT(PostgresStorage::Open(database_->url()),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       AllOf(HasSubstr(database_->name()), HasSubstr("schema version 99"),
                             HasSubstr(absl::StrCat("newer than version ", kSchemaVersion)))));
  // Refusing left the database as it was.
  EXPECT_THAT(database_->QueryValue("SELECT version FROM schema_version"), IsOkAndHolds("99"));
  ASSERT_THAT(
      database_->Execute(absl::StrCat("UPDATE schema_version SET version = ", kSchemaVersion)),
      IsOk());
  EXPECT_THAT(PostgresStorage::Open(database_->url()), IsOk());
}

// A bytea literal of the message's bytes.
std::string ByteaLiteral(const google::protobuf::MessageLite& message) {
  return absl::StrCat("'\\x", absl::BytesToHexString(message.SerializeAsString()), "'");
}

TEST_F(PostgresStorageTest, Version2MovesTheMeasurementCountAndLatestMeasurementToColumns) {
  {
    pqxx::connection connection(database_->url());
    ASSERT_THAT(MigratePostgresSchema(connection, PostgresSchemaMigrations().first(1), "test"),
                IsOkAndHolds(0));
  }
  // Version 1 rows: trial 1 with two measurements, its count and latest
  // measurement in its body; trial 2 without any.
  v1::Measurement first;
  first.set_step(1);
  first.set_sequence_number(1);
  v1::Measurement second = first;
  second.set_step(2);
  second.set_sequence_number(2);
  v1::Trial measured;
  measured.set_study_name("s1");
  measured.set_id(1);
  measured.set_state(v1::Trial::ACTIVE);
  measured.set_measurement_count(2);
  *measured.mutable_latest_measurement() = second;
  v1::Trial unmeasured = measured;
  unmeasured.set_id(2);
  unmeasured.set_measurement_count(0);
  unmeasured.clear_latest_measurement();
  ASSERT_THAT(database_->Execute(absl::StrCat(
                  "INSERT INTO studies VALUES ('s1', 1, 0, ", ByteaLiteral(MakeStudy("s1")), ");",
                  "INSERT INTO trials VALUES ('s1', 1, 2, '', NULL, ", ByteaLiteral(measured),
                  "), ('s1', 2, 2, '', NULL, ", ByteaLiteral(unmeasured), ");",
                  "INSERT INTO measurements VALUES ('s1', 1, 0, 1, 1, ", ByteaLiteral(first),
                  "), ('s1', 1, 1, 2, 2, ", ByteaLiteral(second), ")")),
              IsOk());

  std::unique_ptr<PostgresStorage> store = OpenOrDie();
  ASSERT_NE(store, nullptr);
  absl::StatusOr<v1::Trial> migrated = store->GetTrial("s1", 1, true);
  ASSERT_THAT(migrated, IsOk());
  EXPECT_EQ(migrated->measurement_count(), 2);
  EXPECT_EQ(migrated->latest_measurement().step(), 2);
  EXPECT_EQ(migrated->measurements_size(), 2);
  absl::StatusOr<v1::Trial> empty = store->GetTrial("s1", 2, false);
  ASSERT_THAT(empty, IsOk());
  EXPECT_EQ(empty->measurement_count(), 0);
  EXPECT_FALSE(empty->has_latest_measurement());

  // Appends continue after the migrated measurements.
  v1::Measurement third = first;
  third.set_step(3);
  third.set_sequence_number(3);
  absl::StatusOr<v1::Trial> appended =
      store->AddMeasurements("s1", 1, std::vector<v1::Measurement>{second, third}, {});
  ASSERT_THAT(appended, IsOk());
  EXPECT_EQ(appended->measurement_count(), 3);
  EXPECT_EQ(appended->latest_measurement().step(), 3);
}

TEST_F(PostgresStorageTest, Version4AddsApiTokensAndKeepsWhatVersion3Stored) {
  {
    pqxx::connection connection(database_->url());
    ASSERT_THAT(MigratePostgresSchema(connection, PostgresSchemaMigrations().first(3), "test"),
                IsOkAndHolds(0));
  }
  ASSERT_THAT(database_->Execute(absl::StrCat("INSERT INTO studies VALUES ('s1', 1, 0, ",
                                              ByteaLiteral(MakeStudy("s1")), ")")),
              IsOk());
  std::unique_ptr<PostgresStorage> store = OpenOrDie();
  ASSERT_NE(store, nullptr);
  EXPECT_THAT(store->GetStudy("s1"), IsOk());
  v1::ApiToken token;
  token.set_id("id1");
  token.set_user("alice");
  ASSERT_THAT(store->CreateApiToken("hash1", token), IsOk());
  EXPECT_THAT(store->FindApiToken("hash1"), IsOk());
}

TEST_F(PostgresStorageTest, Version5AddsTheAuditLogAndKeepsWhatVersion4Stored) {
  {
    pqxx::connection connection(database_->url());
    ASSERT_THAT(MigratePostgresSchema(connection, PostgresSchemaMigrations().first(4), "test"),
                IsOkAndHolds(0));
  }
  ASSERT_THAT(database_->Execute(absl::StrCat("INSERT INTO studies VALUES ('s1', 1, 0, ",
                                              ByteaLiteral(MakeStudy("s1")), ")")),
              IsOk());
  std::unique_ptr<PostgresStorage> store = OpenOrDie();
  ASSERT_NE(store, nullptr);
  EXPECT_THAT(store->GetStudy("s1"), IsOk());
  const std::vector<v1::AuditEntry> entries = {MakeAuditEntry("alice", "s1", 10)};
  ASSERT_THAT(store->AppendAuditEntries(entries), IsOk());
  EXPECT_THAT(database_->QueryValue("SELECT version FROM schema_version"),
              IsOkAndHolds(kSchemaVersion));
}

// The ids of the trials a listing holds.
std::vector<int64_t> ListedIds(const absl::StatusOr<TrialChanges>& changes) {
  std::vector<int64_t> ids;
  if (changes.ok()) {
    for (const SerializedTrial& trial : changes->trials) ids.push_back(trial.id);
  }
  return ids;
}

TEST_F(PostgresStorageTest, Version6ListsTheTrialsStoredBeforeItAndTheirLaterWrites) {
  {
    pqxx::connection connection(database_->url());
    ASSERT_THAT(MigratePostgresSchema(connection, PostgresSchemaMigrations().first(5), "test"),
                IsOkAndHolds(0));
  }
  // Version 5 rows: trials 1 and 2, trial 1 measured once.
  v1::Measurement first;
  first.set_step(1);
  first.set_sequence_number(1);
  v1::Trial trial;
  trial.set_study_name("s1");
  trial.set_id(1);
  trial.set_state(v1::Trial::ACTIVE);
  v1::Trial other = trial;
  other.set_id(2);
  ASSERT_THAT(
      database_->Execute(absl::StrCat(
          "INSERT INTO studies VALUES ('s1', 1, 0, ", ByteaLiteral(MakeStudy("s1")), ");",
          "INSERT INTO trials VALUES ('s1', 1, 2, '', NULL, ", ByteaLiteral(trial), ", 1, ",
          ByteaLiteral(first), "), ('s1', 2, 2, '', NULL, ", ByteaLiteral(other), ", 0, NULL);",
          "INSERT INTO measurements VALUES ('s1', 1, 0, 1, 1, ", ByteaLiteral(first), ")")),
      IsOk());

  std::unique_ptr<PostgresStorage> store = OpenOrDie();
  ASSERT_NE(store, nullptr);
  absl::StatusOr<TrialChanges> all = store->ListTrialChanges("s1", "");
  ASSERT_THAT(all, IsOk());
  EXPECT_THAT(ListedIds(all), ElementsAre(1, 2));
  // Written before the migration, neither is listed as changed since.
  absl::StatusOr<TrialChanges> none = store->ListTrialChanges("s1", all->horizon);
  EXPECT_THAT(ListedIds(none), ElementsAre());
  // A measurement of trial 2, by the store, is.
  v1::Measurement second = first;
  second.set_step(2);
  second.set_sequence_number(2);
  ASSERT_THAT(store->AddMeasurements("s1", 2, std::vector<v1::Measurement>{second}, {}), IsOk());
  EXPECT_THAT(ListedIds(store->ListTrialChanges("s1", none->horizon)), ElementsAre(2));
}

// The horizon's point: a write whose transaction was open while a listing
// was read (so that listing did not see it) is in the next listing, though
// later transactions committed before it.
TEST_F(PostgresStorageTest, AWriteOpenWhileATrialListingWasReadIsInTheNextOne) {
  std::unique_ptr<PostgresStorage> store = OpenOrDie();
  ASSERT_NE(store, nullptr);
  ASSERT_THAT(store->CreateStudy(MakeStudy("s1")), IsOk());
  ASSERT_THAT(store->CreateTrials("s1", std::vector<v1::Trial>(3)), IsOk());
  absl::StatusOr<TrialChanges> before = store->ListTrialChanges("s1", "");
  ASSERT_THAT(before, IsOk());

  // Another server's measurement of trial 1, its transaction left open.
  pqxx::connection other(database_->url());
  pqxx::work slow(other);
  slow.exec(
      "INSERT INTO measurements (study_name, trial_id, ordinal, sequence_number, step, body) "
      "VALUES ('s1', 1, 0, 0, 1, '')");
  slow.exec("UPDATE trials SET measurement_count = 1 WHERE study_name = 's1' AND id = 1");
  // Meanwhile trial 2 is measured and trial 3 updated, both committed.
  v1::Measurement measurement;
  measurement.set_step(1);
  ASSERT_THAT(store->AddMeasurements("s1", 2, std::vector<v1::Measurement>{measurement}, {}),
              IsOk());
  ASSERT_THAT(store->UpdateTrial("s1", 3,
                                 [](v1::Trial& trial) {
                                   trial.set_state(v1::Trial::STOPPING);
                                   return absl::OkStatus();
                                 }),
              IsOk());
  absl::StatusOr<TrialChanges> during = store->ListTrialChanges("s1", before->horizon);
  ASSERT_THAT(during, IsOk());
  EXPECT_THAT(ListedIds(during), ::testing::IsSupersetOf({2, 3}));
  for (const SerializedTrial& listed : during->trials) {
    v1::Trial parsed;
    ASSERT_TRUE(parsed.ParseFromString(listed.bytes));
    if (listed.id == 1) {
      EXPECT_EQ(parsed.measurement_count(), 0);  // not committed yet
    }
  }
  slow.commit();

  absl::StatusOr<TrialChanges> after = store->ListTrialChanges("s1", during->horizon);
  ASSERT_THAT(after, IsOk());
  ASSERT_THAT(ListedIds(after), ::testing::Contains(1));
  v1::Trial first;
  ASSERT_TRUE(first.ParseFromString(after->trials.front().bytes));
  EXPECT_EQ(first.id(), 1);
  EXPECT_EQ(first.measurement_count(), 1);
}

// A trial that another server ends while a stop waits for its row: the
// stop's statement sees the trial running in its snapshot but cannot move
// it, so it runs again and returns the ended trial, unstopped.
TEST_F(PostgresStorageTest, AStopThatWaitedForAnotherWriterReturnsWhatThatWriterCommitted) {
  std::unique_ptr<PostgresStorage> store = OpenOrDie();
  ASSERT_NE(store, nullptr);
  ASSERT_THAT(store->CreateStudy(MakeStudy("s1")), IsOk());
  ASSERT_THAT(store->CreateTrials("s1", std::vector<v1::Trial>(1)), IsOk());
  ASSERT_THAT(store->UpdateTrial("s1", 1,
                                 [](v1::Trial& trial) {
                                   trial.set_state(v1::Trial::ACTIVE);
                                   return absl::OkStatus();
                                 }),
              IsOk());

  // The other server's completion, its transaction left open.
  v1::Trial completion;
  completion.set_state(v1::Trial::SUCCEEDED);
  completion.set_status_reason("completed");
  pqxx::connection other(database_->url());
  pqxx::work slow(other);
  slow.exec_params(
      "UPDATE trials SET state = $1, body = body || $2 WHERE study_name = 's1' AND id = 1",
      static_cast<int>(v1::Trial::SUCCEEDED), pqxx::binarystring(completion.SerializeAsString()));

  absl::StatusOr<v1::Trial> stopped = absl::UnknownError("not run");
  std::thread stopper([&] { stopped = store->StopTrialIfActive("s1", 1, "a 1% chance"); });
  // The stop waits for the row's lock; then the completion commits.
  pqxx::connection watcher(database_->url());
  bool waiting = false;
  for (int i = 0; i < 1000 && !waiting; ++i) {
    pqxx::nontransaction look(watcher);
    waiting = look.exec1("SELECT count(*) FROM pg_locks WHERE NOT granted")[0].as<int>() > 0;
    if (!waiting) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(waiting) << "the stop never waited for the row";
  slow.commit();
  stopper.join();

  ASSERT_THAT(stopped, IsOk());
  EXPECT_EQ(stopped->state(), v1::Trial::SUCCEEDED);
  EXPECT_EQ(stopped->status_reason(), "completed");
  absl::StatusOr<v1::Trial> stored = store->GetTrial("s1", 1, false);
  ASSERT_THAT(stored, IsOk());
  EXPECT_EQ(stored->state(), v1::Trial::SUCCEEDED);
  EXPECT_EQ(stored->status_reason(), "completed");
}

// The audit log's rows cannot be changed through PostgreSQL; changed or
// removed around the triggers, the chain shows it.
TEST_F(PostgresStorageTest, AuditRowsAreAppendOnlyAndAChangedOrDeletedRowBreaksTheChain) {
  std::unique_ptr<PostgresStorage> store = OpenOrDie();
  ASSERT_NE(store, nullptr);
  std::vector<v1::AuditEntry> entries;
  for (int i = 1; i <= 4; ++i) entries.push_back(MakeAuditEntry("alice", absl::StrCat("job", i), i));
  ASSERT_THAT(store->AppendAuditEntries(entries), IsOk());
  const auto verify = [&] {
    absl::StatusOr<std::vector<StoredAuditRow>> rows = store->ReadAuditChain();
    EXPECT_THAT(rows, IsOk());
    return VerifyAuditChain(rows.ok() ? *rows : std::vector<StoredAuditRow>{});
  };
  ASSERT_TRUE(verify().intact());
  EXPECT_THAT(database_->Execute("UPDATE audit_log SET user_name = 'mallory' WHERE sequence = 2"),
              Not(IsOk()));
  EXPECT_THAT(database_->Execute("DELETE FROM audit_log WHERE sequence = 2"), Not(IsOk()));
  EXPECT_THAT(database_->Execute("TRUNCATE audit_log"), Not(IsOk()));
  EXPECT_TRUE(verify().intact());

  // Around the triggers: one row's body changed, then another row removed.
  ASSERT_THAT(database_->Execute("ALTER TABLE audit_log DISABLE TRIGGER USER"), IsOk());
  ASSERT_THAT(database_->Execute("UPDATE audit_log SET body = convert_to(replace(convert_from("
                                 "body, 'LATIN1'), 'alice', 'malice'), 'LATIN1') "
                                 "WHERE sequence = 2"),
              IsOk());
  v1::VerifyAuditLogResponse changed = verify();
  EXPECT_FALSE(changed.intact());
  EXPECT_EQ(changed.first_bad_sequence(), 2);
  EXPECT_THAT(changed.problem(), HasSubstr("changed"));
  ASSERT_THAT(database_->Execute("DELETE FROM audit_log WHERE sequence = 2"), IsOk());
  v1::VerifyAuditLogResponse deleted = verify();
  EXPECT_FALSE(deleted.intact());
  EXPECT_EQ(deleted.first_bad_sequence(), 2);
  EXPECT_THAT(deleted.problem(), HasSubstr("deleted"));
}

// Each server chains its appends after the newest row it knows; when another
// server appended meanwhile, the append is refused by the sequence's key, and
// it chains again after the newest row at once, however short the retry
// timeout: only losing again, after reading the newest row, counts against
// it.
TEST_F(PostgresStorageTest, AnAppendAfterAnotherServersAppendsChainsAfterThem) {
  auto [first, second] = OpenImpatientAndPatient();
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  const std::vector<v1::AuditEntry> a = {MakeAuditEntry("alice", "job1", 1)};
  const std::vector<v1::AuditEntry> b = {MakeAuditEntry("bob", "job2", 2),
                                         MakeAuditEntry("bob", "job3", 3)};
  const std::vector<v1::AuditEntry> c = {MakeAuditEntry("carol", "job4", 4)};
  ASSERT_THAT(first->AppendAuditEntries(a), IsOk());
  ASSERT_THAT(second->AppendAuditEntries(b), IsOk());
  // `first` still knows row 1 as the newest.
  ASSERT_THAT(first->AppendAuditEntries(c), IsOk());
  absl::StatusOr<std::vector<StoredAuditRow>> rows = second->ReadAuditChain();
  ASSERT_THAT(rows, IsOk());
  const v1::VerifyAuditLogResponse verified = VerifyAuditChain(*rows);
  EXPECT_TRUE(verified.intact()) << verified.problem();
  ASSERT_EQ(rows->size(), 4u);
  EXPECT_EQ((*rows)[0].user, "alice");
  EXPECT_EQ((*rows)[1].user, "bob");
  EXPECT_EQ((*rows)[2].user, "bob");
  EXPECT_EQ((*rows)[3].user, "carol");
}

// Appends that keep losing to other servers (here a trigger refuses every
// row as a duplicate) give up at the retry timeout, as ABORTED naming the
// store, storing nothing; the next one goes in.
TEST_F(PostgresStorageTest, AnAppendThatKeepsLosingToOtherServersIsAbortedStoringNothing) {
  PostgresStorageOptions impatient;
  impatient.retry_timeout = absl::ZeroDuration();
  std::unique_ptr<PostgresStorage> store = OpenOrDie(impatient);
  ASSERT_NE(store, nullptr);
  const std::vector<v1::AuditEntry> a = {MakeAuditEntry("alice", "job1", 1)};
  const std::vector<v1::AuditEntry> b = {MakeAuditEntry("bob", "job2", 2)};
  ASSERT_THAT(store->AppendAuditEntries(a), IsOk());
  RefuseInserts("audit_log");
  EXPECT_THAT(store->AppendAuditEntries(b),
              StatusIs(absl::StatusCode::kAborted,
                       AllOf(HasSubstr("appending 1 audit rows"),
                             HasSubstr("other servers kept appending"))));
  RefuseInserts("audit_log", false);
  absl::StatusOr<std::vector<StoredAuditRow>> rows = store->ReadAuditChain();
  ASSERT_THAT(rows, IsOk());
  EXPECT_EQ(rows->size(), 1u);
  ASSERT_THAT(store->AppendAuditEntries(b), IsOk());
  rows = store->ReadAuditChain();
  ASSERT_THAT(rows, IsOk());
  EXPECT_TRUE(VerifyAuditChain(*rows).intact());
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ(rows->back().user, "bob");
}

// New trials take the ids after the study's largest even when another
// server created trials since this one last did; a study that does not
// exist is NOT_FOUND and gets nothing; and creators that keep losing the
// ids (here a trigger refuses every row as a duplicate) give up at the retry
// timeout as ABORTED, storing nothing.
TEST_F(PostgresStorageTest, NewTrialsFollowTheLargestIdWhoeverCreatedIt) {
  auto [first, second] = OpenImpatientAndPatient();
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  ASSERT_THAT(first->CreateStudy(MakeStudy("s")), IsOk());
  v1::Trial trial;
  trial.set_state(v1::Trial::ACTIVE);
  const auto ids = [](const absl::StatusOr<std::vector<v1::Trial>>& created) {
    std::vector<int64_t> out;
    if (created.ok()) {
      for (const v1::Trial& t : *created) out.push_back(t.id());
    }
    return out;
  };
  EXPECT_THAT(ids(first->CreateTrials("s", std::vector<v1::Trial>(1, trial))), ElementsAre(1));
  EXPECT_THAT(ids(second->CreateTrials("s", std::vector<v1::Trial>(2, trial))),
              ElementsAre(2, 3));
  EXPECT_THAT(ids(first->CreateTrials("s", std::vector<v1::Trial>(2, trial))),
              ElementsAre(4, 5));
  EXPECT_THAT(ids(second->CreateTrials("s", std::vector<v1::Trial>(1, trial))), ElementsAre(6));

  EXPECT_THAT(first->CreateTrials("nowhere", std::vector<v1::Trial>(1, trial)),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("\"nowhere\"")));

  RefuseInserts("trials");
  EXPECT_THAT(first->CreateTrials("s", std::vector<v1::Trial>(1, trial)),
              StatusIs(absl::StatusCode::kAborted,
                       AllOf(HasSubstr("creating trials in study \"s\""),
                             HasSubstr("other creators kept taking the ids"))));
  RefuseInserts("trials", false);
  absl::StatusOr<storage::Page<v1::Trial>> stored = second->ListTrials("s", {});
  ASSERT_THAT(stored, IsOk());
  EXPECT_EQ(stored->items.size(), 6u);
  EXPECT_THAT(ids(first->CreateTrials("s", std::vector<v1::Trial>(1, trial))), ElementsAre(7));
}

// An append refused by the key whose own rows are already the newest (a
// retry after a connection lost once the first try had committed) is not
// stored twice. Here the other server stored exactly the rows this one
// would: the same entry, after the same row.
TEST_F(PostgresStorageTest, AnAppendWhoseRowsAreAlreadyStoredIsNotStoredTwice) {
  std::unique_ptr<PostgresStorage> first = OpenOrDie();
  std::unique_ptr<PostgresStorage> second = OpenOrDie();
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  const std::vector<v1::AuditEntry> a = {MakeAuditEntry("alice", "job1", 1)};
  const std::vector<v1::AuditEntry> b = {MakeAuditEntry("bob", "job2", 2)};
  ASSERT_THAT(first->AppendAuditEntries(a), IsOk());
  ASSERT_THAT(second->AppendAuditEntries(b), IsOk());
  ASSERT_THAT(first->AppendAuditEntries(b), IsOk());
  absl::StatusOr<std::vector<StoredAuditRow>> rows = first->ReadAuditChain();
  ASSERT_THAT(rows, IsOk());
  EXPECT_TRUE(VerifyAuditChain(*rows).intact());
  EXPECT_EQ(rows->size(), 2u);
  // Appends go on after it.
  ASSERT_THAT(first->AppendAuditEntries(a), IsOk());
  rows = second->ReadAuditChain();
  ASSERT_THAT(rows, IsOk());
  EXPECT_TRUE(VerifyAuditChain(*rows).intact());
  EXPECT_EQ(rows->size(), 3u);
}

// Under a job's lease (a fenced write runs in a transaction of its own, the
// lease checked first), trials that lose their ids to another creator are
// tried again, as without one: after trials created elsewhere, and when
// every try is refused, until the retry timeout.
TEST_F(PostgresStorageTest, FencedTrialsThatLoseTheirIdsAreTriedAgainUnderTheLease) {
  auto [first, second] = OpenImpatientAndPatient();
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  v1::Job job;
  job.set_job_id("j");
  job.set_state(v1::Job::RUNNING);
  job.set_study_name("j");
  job.add_command("train");
  ASSERT_THAT(first->CreateJob(job, MakeStudy("j")), IsOk());
  absl::StatusOr<std::vector<JobLease>> lease =
      first->AcquireJobLeases("one", std::vector<std::string>{"j"}, absl::Seconds(60));
  ASSERT_THAT(lease, IsOk());
  ASSERT_EQ(lease->size(), 1u);
  v1::Trial trial;
  trial.set_state(v1::Trial::ACTIVE);
  const std::vector<v1::Trial> one(1, trial);
  ScopedWriteFence fenced(WriteFence{"j", "one", (*lease)[0].token});
  absl::StatusOr<std::vector<v1::Trial>> created = first->CreateTrials("j", one);
  ASSERT_THAT(created, IsOk());
  EXPECT_EQ((*created)[0].id(), 1);
  ASSERT_THAT(second->CreateTrials("j", one), IsOk());
  created = first->CreateTrials("j", one);
  ASSERT_THAT(created, IsOk());
  EXPECT_EQ((*created)[0].id(), 3);
  RefuseInserts("trials");
  EXPECT_THAT(first->CreateTrials("j", one),
              StatusIs(absl::StatusCode::kAborted, HasSubstr("other creators kept taking")));
  RefuseInserts("trials", false);
  created = first->CreateTrials("j", one);
  ASSERT_THAT(created, IsOk());
  EXPECT_EQ((*created)[0].id(), 4);
}

// ListTrialBodies hands bodies over unparsed, but not a body whose framing
// is broken: the page is refused naming the trial; the page before it reads.
TEST_F(PostgresStorageTest, ABrokenTrialBodyIsInternalNamingTheTrialInAListOfBodies) {
  std::unique_ptr<PostgresStorage> store = OpenOrDie();
  ASSERT_NE(store, nullptr);
  ASSERT_THAT(store->CreateStudy(MakeStudy("s1")), IsOk());
  ASSERT_THAT(store->CreateTrials("s1", std::vector<v1::Trial>(2)), IsOk());
  // Field 2 (study_name) claims 100 bytes and has one.
  ASSERT_THAT(database_->Execute("UPDATE trials SET body = '\\x126441'::bytea WHERE id = 2"),
              IsOk());
  ExpectTrialTwoOfS1RefusedInListsOfBodies(*store);
}

TEST_F(PostgresStorageTest, ServersOpeningANewDatabaseTogetherMigrateItOnce) {
  constexpr int kServers = 4;
  std::atomic<int> failures = 0;
  std::vector<std::thread> servers;
  for (int i = 0; i < kServers; ++i) {
    servers.emplace_back([&] {
      absl::StatusOr<std::unique_ptr<PostgresStorage>> store =
          PostgresStorage::Open(database_->url());
      if (!store.ok()) {
        ADD_FAILURE() << store.status();
        ++failures;
      }
    });
  }
  for (std::thread& server : servers) server.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_THAT(database_->QueryValue("SELECT COUNT(*) FROM schema_version"), IsOkAndHolds("1"));
}

TEST_F(PostgresStorageTest, RidesOutTheServerEndingItsConnections) {
  std::unique_ptr<PostgresStorage> store = OpenOrDie();
  ASSERT_NE(store, nullptr);
  ASSERT_THAT(store->CreateStudy(MakeStudy("s1")), IsOk());
  absl::StatusOr<std::unique_ptr<StudyLock>> lock = store->LockStudy("s1");
  ASSERT_THAT(lock, IsOk());
  // What a server restart does to every open session, the lock's included.
  ASSERT_THAT(database_->TerminateOtherSessions(), IsOk());
  EXPECT_THAT(store->GetStudy("s1"), IsOk());
  EXPECT_THAT(store->CreateStudy(MakeStudy("s2")), IsOk());
  lock->reset();  // Its session is gone: releasing only logs.
  EXPECT_THAT(store->LockStudy("s1"), IsOk());
  EXPECT_LE(store->open_connections(), PostgresStorageOptions().max_connections);
}

TEST_F(PostgresStorageTest, NeverOpensMoreConnectionsThanAllowed) {
  PostgresStorageOptions options;
  options.max_connections = 2;
  std::unique_ptr<PostgresStorage> store = OpenOrDie(options);
  ASSERT_NE(store, nullptr);
  ASSERT_THAT(store->CreateStudy(MakeStudy("s1")), IsOk());
  std::atomic<int> failures = 0;
  std::vector<std::thread> readers;
  for (int i = 0; i < 6; ++i) {
    readers.emplace_back([&] {
      for (int j = 0; j < 20; ++j) {
        if (!store->GetStudy("s1").ok()) ++failures;
        if (store->open_connections() > 2) ++failures;
      }
    });
  }
  for (std::thread& reader : readers) reader.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST_F(PostgresStorageTest, AMissingDatabaseIsFailedPreconditionNamedWithHowToCreateIt) {
  const std::string missing = database_->url() + "_missing";
  EXPECT_THAT(PostgresStorage::Open(missing),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       AllOf(HasSubstr("database \"" + database_->name() + "_missing\" does not exist"),
                             HasSubstr("CREATE DATABASE \"" + database_->name() + "_missing\""),
                             Not(HasSubstr("lost")))));
}

TEST(PostgresStorageOpenTest, AnUnreachableServerIsUnavailableWithoutThePassword) {
  EXPECT_THAT(PostgresStorage::Open("postgresql://vernier:hunter2@127.0.0.1:1/vernier"),
              StatusIs(absl::StatusCode::kUnavailable,
                       AllOf(HasSubstr("postgresql://vernier:***@127.0.0.1:1/vernier"),
                             Not(HasSubstr("hunter2")))));
  EXPECT_THAT(PostgresStorage::Open(""),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("URL is empty")));
}

TEST(PostgresStorageOpenTest, OpenStorageOpensPostgresqlUrls) {
  if (PostgresTestServerUrl().empty()) GTEST_SKIP() << kNoPostgresServer;
  absl::StatusOr<std::unique_ptr<PostgresTestDatabase>> database = PostgresTestDatabase::Create();
  ASSERT_THAT(database, IsOk());
  absl::StatusOr<std::unique_ptr<Storage>> store = OpenStorage((*database)->url());
  ASSERT_THAT(store, IsOk());
  EXPECT_NE(dynamic_cast<PostgresStorage*>(store->get()), nullptr);
  EXPECT_THAT((*store)->CreateStudy(MakeStudy("s1")), IsOk());
}

// Concurrent reports go out in one statement (group commit). Study names
// that need quoting in an array literal survive it, and a report that makes
// its batch's statement fail (a name that is not UTF-8) fails alone: the
// others in the batch are run again one by one.
TEST_F(PostgresStorageTest, AReportThatBreaksItsBatchFailsAlone) {
  std::unique_ptr<PostgresStorage> store = OpenOrDie();
  ASSERT_NE(store, nullptr);
  const std::vector<std::string> studies = {"plain", "with \"quotes\", \\ and {braces}"};
  for (const std::string& name : studies) {
    ASSERT_THAT(store->CreateStudy(MakeStudy(name)), IsOk());
    v1::Trial trial;
    trial.set_state(v1::Trial::ACTIVE);
    ASSERT_THAT(store->CreateTrials(name, std::vector<v1::Trial>(2, trial)), IsOk());
  }
  constexpr int kReports = 40;
  std::atomic<int> wrong = 0;
  const auto report = [&](const std::string& study, int64_t trial_id, bool should_succeed) {
    for (int i = 1; i <= kReports; ++i) {
      v1::Measurement measurement;
      measurement.set_step(i);
      measurement.set_sequence_number(i);
      absl::StatusOr<v1::Trial> trial =
          store->AddMeasurements(study, trial_id, std::vector<v1::Measurement>{measurement}, {});
      if (trial.ok() != should_succeed) {
        ADD_FAILURE() << study << " trial " << trial_id << " report " << i << ": "
                      << trial.status();
        ++wrong;
      }
    }
  };
  std::vector<std::thread> threads;
  for (const std::string& study : studies) {
    for (int64_t trial_id : {1, 2}) threads.emplace_back(report, study, trial_id, true);
  }
  threads.emplace_back(report, std::string("not \xff UTF-8"), 1, false);
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(wrong.load(), 0);
  for (const std::string& study : studies) {
    for (int64_t trial_id : {1, 2}) {
      absl::StatusOr<v1::Trial> trial = store->GetTrial(study, trial_id, true);
      ASSERT_THAT(trial, IsOk());
      EXPECT_EQ(trial->measurements_size(), kReports) << study << " trial " << trial_id;
      EXPECT_EQ(trial->latest_measurement().step(), kReports) << study << " trial " << trial_id;
    }
  }
}

// With group commit off, every report is a statement of its own and the
// outcomes are the same.
TEST_F(PostgresStorageTest, GroupCommitCanBeTurnedOff) {
  PostgresStorageOptions options;
  options.max_measurements_per_commit = 1;
  std::unique_ptr<PostgresStorage> store = OpenOrDie(options);
  ASSERT_NE(store, nullptr);
  ASSERT_THAT(store->CreateStudy(MakeStudy("s1")), IsOk());
  v1::Trial active;
  active.set_state(v1::Trial::ACTIVE);
  ASSERT_THAT(store->CreateTrials("s1", std::vector<v1::Trial>(1, active)), IsOk());
  v1::Measurement measurement;
  measurement.set_step(3);
  measurement.set_sequence_number(1);
  const std::vector<v1::Measurement> report = {measurement};
  EXPECT_THAT(store->AddMeasurements("s1", 1, report, {}), IsOk());
  absl::StatusOr<v1::Trial> again = store->AddMeasurements("s1", 1, report, {});
  ASSERT_THAT(again, IsOk());
  EXPECT_EQ(again->measurement_count(), 1);
  EXPECT_THAT(store->AddMeasurements("s1", 2, report, {}),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("has no trial 2")));
}

}  // namespace
}  // namespace vernier::storage::testing
