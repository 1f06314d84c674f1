#include "tuner/storage/sqlite/sqlite_storage.h"

#include <poll.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/tuner/storage/scoped_temp_dir.h"
#include "tests/tuner/storage/job_coordination_conformance.h"
#include "tests/tuner/storage/storage_conformance.h"
#include "tests/tuner/storage/storage_test_matchers.h"
#include "tuner/storage/sqlite/sqlite_schema.h"
#include "tuner/storage/storage_factory.h"

namespace vernier::storage::testing {

class SqliteStorageFactory {
 public:
  absl::StatusOr<std::unique_ptr<Storage>> Create() { return Reopen(); }

  absl::StatusOr<std::unique_ptr<Storage>> Reopen() {
    absl::StatusOr<std::unique_ptr<SqliteStorage>> store =
        SqliteStorage::Open(dir_.File("conformance/store.db"));
    if (!store.ok()) return store.status();
    return std::unique_ptr<Storage>(*std::move(store));
  }

 private:
  ScopedTempDir dir_;
};

INSTANTIATE_TYPED_TEST_SUITE_P(Sqlite, StorageConformanceTest,
                               ::testing::Types<SqliteStorageFactory>);
INSTANTIATE_TYPED_TEST_SUITE_P(Sqlite, JobCoordinationConformanceTest,
                               ::testing::Types<SqliteStorageFactory>);

namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::SizeIs;

// Runs SQL on its own connection, as another program would.
absl::Status ExecuteRaw(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  int result = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr);
  char* message = nullptr;
  if (result == SQLITE_OK) result = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message);
  const std::string text = message != nullptr ? message : sqlite3_errstr(result);
  sqlite3_free(message);
  sqlite3_close_v2(db);
  if (result == SQLITE_OK) return absl::OkStatus();
  return absl::InternalError(text);
}

// The first column of the first row `sql` returns, as text, read on its own
// connection.
absl::StatusOr<std::string> QueryRaw(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  sqlite3_stmt* statement = nullptr;
  int result = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  if (result == SQLITE_OK) result = sqlite3_prepare_v2(db, sql.c_str(), -1, &statement, nullptr);
  std::string value;
  if (result == SQLITE_OK) {
    result = sqlite3_step(statement);
    if (result == SQLITE_ROW) {
      const unsigned char* text = sqlite3_column_text(statement, 0);
      value = text != nullptr ? reinterpret_cast<const char*>(text) : "NULL";
      result = SQLITE_OK;
    }
  }
  const std::string message = sqlite3_errmsg(db);
  sqlite3_finalize(statement);
  sqlite3_close_v2(db);
  if (result != SQLITE_OK) return absl::InternalError(message);
  return value;
}

// A raw connection holding SQLite's write lock until it is destroyed.
class WriteLockHolder {
 public:
  explicit WriteLockHolder(const std::string& path) {
    EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE, nullptr), SQLITE_OK);
    EXPECT_EQ(sqlite3_exec(db_, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
  }
  ~WriteLockHolder() {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    sqlite3_close_v2(db_);
  }
  sqlite3* db() { return db_; }

 private:
  sqlite3* db_ = nullptr;
};

v1::Study MakeStudy(const std::string& name) {
  v1::Study study;
  study.set_name(name);
  study.set_state(v1::Study::ACTIVE);
  study.mutable_create_time()->set_seconds(1'700'000'000);
  return study;
}

v1::Trial MakeTrial(v1::Trial::State state) {
  v1::Trial trial;
  trial.set_state(state);
  return trial;
}

v1::Measurement MakeMeasurement(int64_t step, int64_t sequence_number) {
  v1::Measurement measurement;
  measurement.set_step(step);
  measurement.set_sequence_number(sequence_number);
  v1::Metric* metric = measurement.add_metrics();
  metric->set_metric_id("loss");
  metric->set_value(1.0 / static_cast<double>(step));
  return measurement;
}

v1::Job MakeJob(const std::string& job_id) {
  v1::Job job;
  job.set_job_id(job_id);
  job.set_state(v1::Job::RUNNING);
  job.set_study_name(job_id);
  job.mutable_create_time()->set_seconds(1'700'000'100);
  return job;
}

std::unique_ptr<SqliteStorage> OpenOrDie(const std::string& path,
                                         const SqliteStorageOptions& options = {}) {
  absl::StatusOr<std::unique_ptr<SqliteStorage>> store = SqliteStorage::Open(path, options);
  EXPECT_THAT(store, IsOk());
  return store.ok() ? *std::move(store) : nullptr;
}

// Everything the durability tests write, as one sequence of calls; returns
// the number of the call that failed, or 0.
int WriteEverything(Storage& store) {
  if (!store.CreateStudy(MakeStudy("s1")).ok()) return 1;
  if (!store
           .CreateTrials("s1", std::vector<v1::Trial>{MakeTrial(v1::Trial::ACTIVE),
                                                      MakeTrial(v1::Trial::ACTIVE)})
           .ok()) {
    return 2;
  }
  if (!store
           .AddMeasurements(
               "s1", 1, std::vector<v1::Measurement>{MakeMeasurement(1, 1), MakeMeasurement(2, 2)},
               {})
           .ok()) {
    return 3;
  }
  if (!store.CreateJob(MakeJob("job_1"), MakeStudy("job_1")).ok()) return 4;
  v1::TrialRun run;
  run.set_trial_id(1);
  run.set_backend_handle("local:1");
  if (!store.PutTrialRun("job_1", run).ok()) return 5;
  if (!store
           .UpdateTrial("s1", 2,
                        [](v1::Trial& trial) {
                          trial.set_state(v1::Trial::SUCCEEDED);
                          return absl::OkStatus();
                        })
           .ok()) {
    return 6;
  }
  return 0;
}

void ExpectEverythingWritten(Storage& store) {
  EXPECT_THAT(store.GetStudy("s1"), IsOk());
  absl::StatusOr<v1::Trial> first = store.GetTrial("s1", 1, true);
  ASSERT_THAT(first, IsOk());
  EXPECT_EQ(first->measurement_count(), 2);
  EXPECT_THAT(first->measurements(), SizeIs(2));
  EXPECT_EQ(first->latest_measurement().step(), 2);
  absl::StatusOr<v1::Trial> second = store.GetTrial("s1", 2, false);
  ASSERT_THAT(second, IsOk());
  EXPECT_EQ(second->state(), v1::Trial::SUCCEEDED);
  absl::StatusOr<v1::Job> job = store.GetJob("job_1");
  ASSERT_THAT(job, IsOk());
  EXPECT_EQ(job->state(), v1::Job::RUNNING);
  EXPECT_THAT(store.GetStudy("job_1"), IsOk());
  absl::StatusOr<std::vector<v1::TrialRun>> runs = store.ListTrialRuns("job_1");
  ASSERT_THAT(runs, IsOk());
  ASSERT_THAT(*runs, SizeIs(1));
  EXPECT_EQ((*runs)[0].backend_handle(), "local:1");
}

enum class ChildEnd { kSigkill, kUnderscoreExit };

// Forks a child that opens the store at `path`, runs `write` and, when it
// succeeds, ends by `end` at once: no destructor, no close, no checkpoint.
// Returns the child's wait status.
int RunWriterChild(const std::string& path, const std::function<int(Storage&)>& write,
                   ChildEnd end) {
  const pid_t pid = fork();
  if (pid == 0) {
    absl::StatusOr<std::unique_ptr<SqliteStorage>> store = SqliteStorage::Open(path);
    if (!store.ok()) _exit(100);
    const int failed_call = write(**store);
    if (failed_call != 0) _exit(failed_call);
    if (end == ChildEnd::kSigkill) raise(SIGKILL);
    _exit(0);
  }
  EXPECT_GT(pid, 0) << "fork failed";
  int status = 0;
  EXPECT_EQ(waitpid(pid, &status, 0), pid);
  return status;
}

// --------------------------------------------------------------- durability

TEST(SqliteStorageTest, ReopenSeesEverythingWritten) {
  ScopedTempDir dir;
  const std::string path = dir.File("store.db");
  {
    std::unique_ptr<SqliteStorage> store = OpenOrDie(path);
    ASSERT_NE(store, nullptr);
    ASSERT_EQ(WriteEverything(*store), 0);
  }
  std::unique_ptr<SqliteStorage> reopened = OpenOrDie(path);
  ASSERT_NE(reopened, nullptr);
  ExpectEverythingWritten(*reopened);
}

TEST(SqliteStorageTest, ChildKilledRightAfterOkLosesNothing) {
  ScopedTempDir dir;
  const std::string path = dir.File("store.db");
  const int status = RunWriterChild(path, WriteEverything, ChildEnd::kSigkill);
  ASSERT_TRUE(WIFSIGNALED(status))
      << "the child exited with " << WEXITSTATUS(status) << " (the number of the call that failed)";
  ASSERT_EQ(WTERMSIG(status), SIGKILL);
  std::unique_ptr<SqliteStorage> reopened = OpenOrDie(path);
  ASSERT_NE(reopened, nullptr);
  ExpectEverythingWritten(*reopened);
}

TEST(SqliteStorageTest, ChildExitingWithoutClosingLosesNothing) {
  ScopedTempDir dir;
  const std::string path = dir.File("store.db");
  const int status = RunWriterChild(path, WriteEverything, ChildEnd::kUnderscoreExit);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0) << "the number of the call that failed";
  std::unique_ptr<SqliteStorage> reopened = OpenOrDie(path);
  ASSERT_NE(reopened, nullptr);
  ExpectEverythingWritten(*reopened);
}

TEST(SqliteStorageTest, WriterKilledMidStreamKeepsEveryAcknowledgedTrial) {
  ScopedTempDir dir;
  const std::string path = dir.File("store.db");
  {
    std::unique_ptr<SqliteStorage> store = OpenOrDie(path);
    ASSERT_NE(store, nullptr);
    ASSERT_THAT(store->CreateStudy(MakeStudy("s1")), IsOk());
  }
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  const pid_t pid = fork();
  if (pid == 0) {
    // The child tells the parent each id the store acknowledged, then goes on.
    close(pipe_fds[0]);
    absl::StatusOr<std::unique_ptr<SqliteStorage>> store = SqliteStorage::Open(path);
    if (!store.ok()) _exit(100);
    for (;;) {
      absl::StatusOr<std::vector<v1::Trial>> created =
          (*store)->CreateTrials("s1", std::vector<v1::Trial>{MakeTrial(v1::Trial::ACTIVE)});
      if (!created.ok()) _exit(101);
      const int64_t id = (*created)[0].id();
      if (write(pipe_fds[1], &id, sizeof(id)) != sizeof(id)) _exit(102);
    }
  }
  ASSERT_GT(pid, 0);
  close(pipe_fds[1]);
  constexpr int kAcknowledgedBeforeKill = 30;
  int64_t last_acknowledged = 0;
  int acknowledged = 0;
  const absl::Time deadline = absl::Now() + absl::Seconds(15);
  while (acknowledged < kAcknowledgedBeforeKill && absl::Now() < deadline) {
    pollfd readable = {.fd = pipe_fds[0], .events = POLLIN, .revents = 0};
    if (poll(&readable, 1, 1000) <= 0) continue;
    int64_t id = 0;
    if (read(pipe_fds[0], &id, sizeof(id)) != sizeof(id)) break;
    last_acknowledged = id;
    ++acknowledged;
  }
  kill(pid, SIGKILL);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  close(pipe_fds[0]);
  ASSERT_EQ(acknowledged, kAcknowledgedBeforeKill)
      << "the writer stopped early: " << (WIFEXITED(status) ? WEXITSTATUS(status) : -1);

  std::unique_ptr<SqliteStorage> reopened = OpenOrDie(path);
  ASSERT_NE(reopened, nullptr);
  absl::StatusOr<Page<v1::Trial>> trials = reopened->ListTrials("s1", TrialQuery{});
  ASSERT_THAT(trials, IsOk());
  ASSERT_GE(static_cast<int64_t>(trials->items.size()), last_acknowledged);
  for (size_t i = 0; i < trials->items.size(); ++i) {
    EXPECT_EQ(trials->items[i].id(), static_cast<int64_t>(i) + 1);
  }
  absl::StatusOr<std::string> integrity = QueryRaw(path, "PRAGMA integrity_check");
  ASSERT_THAT(integrity, IsOk());
  EXPECT_EQ(*integrity, "ok");
}

// ------------------------------------------------------------------ schema

TEST(SqliteStorageTest, RefusesADatabaseWithANewerSchema) {
  ScopedTempDir dir;
  const std::string path = dir.File("store.db");
  ASSERT_NE(OpenOrDie(path), nullptr);
  ASSERT_THAT(ExecuteRaw(path, "UPDATE schema_version SET version = 99"), IsOk());
  EXPECT_THAT(SqliteStorage::Open(path),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       AllOf(HasSubstr(path), HasSubstr("schema version 99"),
                             HasSubstr(absl::StrCat("newer than version ",
                                                      SqliteSchemaMigrations().size())))));
  // Refusing left the database as it was.
  absl::StatusOr<std::string> version = QueryRaw(path, "SELECT version FROM schema_version");
  ASSERT_THAT(version, IsOk());
  EXPECT_EQ(*version, "99");
  ASSERT_THAT(ExecuteRaw(path, absl::StrCat("UPDATE schema_version SET version = ",
                                             SqliteSchemaMigrations().size())),
              IsOk());
  EXPECT_THAT(SqliteStorage::Open(path), IsOk());
}

TEST(SqliteStorageTest, ReopeningDoesNotMigrateAgain) {
  ScopedTempDir dir;
  const std::string path = dir.File("store.db");
  {
    std::unique_ptr<SqliteStorage> store = OpenOrDie(path);
    ASSERT_NE(store, nullptr);
    ASSERT_THAT(store->CreateStudy(MakeStudy("s1")), IsOk());
  }
  // A second migration run would fail on CREATE TABLE studies.
  std::unique_ptr<SqliteStorage> reopened = OpenOrDie(path);
  ASSERT_NE(reopened, nullptr);
  EXPECT_THAT(reopened->GetStudy("s1"), IsOk());
}

TEST(SqliteStorageTest, MigratingFromVersion1FillsTheLeaderboard) {
  ScopedTempDir dir;
  const std::string path = dir.File("store.db");
  v1::Study study = MakeStudy("s1");
  v1::MetricSpec* metric = study.mutable_spec()->add_metrics();
  metric->set_metric_id("loss");
  metric->set_goal(v1::MetricSpec::MINIMIZE);
  std::vector<v1::Trial> trials;
  for (const double loss : {0.5, 0.2, 0.9}) {
    v1::Trial trial = MakeTrial(v1::Trial::SUCCEEDED);
    v1::Metric* value = trial.mutable_final_measurement()->add_metrics();
    value->set_metric_id("loss");
    value->set_value(loss);
    trials.push_back(trial);
  }
  trials.push_back(MakeTrial(v1::Trial::ACTIVE));
  {
    std::unique_ptr<SqliteStorage> store = OpenOrDie(path);
    ASSERT_NE(store, nullptr);
    ASSERT_THAT(store->CreateStudy(study), IsOk());
    ASSERT_THAT(store->CreateTrials("s1", trials), IsOk());
  }
  // Back to how version 1 stored it: no rank column.
  ASSERT_THAT(ExecuteRaw(path,
                         "DROP INDEX trials_by_revision; ALTER TABLE trials DROP COLUMN revision; "
                         "DROP INDEX trials_by_rank; ALTER TABLE trials DROP COLUMN rank_key; "
                         "DROP TABLE job_leases; DROP TABLE servers; DROP TABLE agent_contacts; "
                         "DROP TABLE replica_exits; DROP TABLE api_tokens; DROP TABLE audit_log; "
                         "UPDATE schema_version SET version = 1"),
              IsOk());
  std::unique_ptr<SqliteStorage> migrated = OpenOrDie(path);
  ASSERT_NE(migrated, nullptr);
  absl::StatusOr<std::vector<v1::Trial>> best = migrated->ListBestTrials("s1", 0);
  ASSERT_THAT(best, IsOk());
  std::vector<int64_t> ids;
  for (const v1::Trial& trial : *best) ids.push_back(trial.id());
  EXPECT_THAT(ids, ElementsAre(2, 1, 3));
  absl::StatusOr<std::string> version = QueryRaw(path, "SELECT version FROM schema_version");
  ASSERT_THAT(version, IsOk());
  EXPECT_EQ(*version, std::to_string(SqliteSchemaMigrations().size()));
}

TEST(SqliteStorageTest, MigratingFromVersion3AddsApiTokensAndKeepsTheRest) {
  ScopedTempDir dir;
  const std::string path = dir.File("store.db");
  {
    std::unique_ptr<SqliteStorage> store = OpenOrDie(path);
    ASSERT_NE(store, nullptr);
    ASSERT_THAT(store->CreateStudy(MakeStudy("s1")), IsOk());
  }
  ASSERT_THAT(ExecuteRaw(path,
                         "DROP INDEX trials_by_revision; ALTER TABLE trials DROP COLUMN revision; "
                         "DROP TABLE audit_log; DROP TABLE api_tokens; "
                         "UPDATE schema_version SET version = 3"),
              IsOk());
  std::unique_ptr<SqliteStorage> migrated = OpenOrDie(path);
  ASSERT_NE(migrated, nullptr);
  EXPECT_THAT(migrated->GetStudy("s1"), IsOk());
  v1::ApiToken token;
  token.set_id("id1");
  token.set_user("alice");
  ASSERT_THAT(migrated->CreateApiToken("hash1", token), IsOk());
  EXPECT_THAT(migrated->FindApiToken("hash1"), IsOk());
  absl::StatusOr<std::string> version = QueryRaw(path, "SELECT version FROM schema_version");
  ASSERT_THAT(version, IsOk());
  EXPECT_EQ(*version, std::to_string(SqliteSchemaMigrations().size()));
}

TEST(SqliteStorageTest, MigratingFromVersion4AddsTheAuditLogAndKeepsTheRest) {
  ScopedTempDir dir;
  const std::string path = dir.File("store.db");
  {
    std::unique_ptr<SqliteStorage> store = OpenOrDie(path);
    ASSERT_NE(store, nullptr);
    ASSERT_THAT(store->CreateStudy(MakeStudy("s1")), IsOk());
  }
  ASSERT_THAT(ExecuteRaw(path,
                         "DROP INDEX trials_by_revision; ALTER TABLE trials DROP COLUMN revision; "
                         "DROP TABLE audit_log; UPDATE schema_version SET version = 4"),
              IsOk());
  std::unique_ptr<SqliteStorage> migrated = OpenOrDie(path);
  ASSERT_NE(migrated, nullptr);
  EXPECT_THAT(migrated->GetStudy("s1"), IsOk());
  const std::vector<v1::AuditEntry> entries = {MakeAuditEntry("alice", "s1", 10)};
  ASSERT_THAT(migrated->AppendAuditEntries(entries), IsOk());
  EXPECT_THAT(QueryRaw(path, "SELECT version FROM schema_version"),
              IsOkAndHolds(std::to_string(SqliteSchemaMigrations().size())));
}

// Rows written before version 6 have no revision (0): the first listing has
// them all, and a listing since its horizon has the trials written after.
TEST(SqliteStorageTest, MigratingFromVersion5ListsTheOlderTrialsOnceThenWhatIsWritten) {
  ScopedTempDir dir;
  const std::string path = dir.File("store.db");
  {
    std::unique_ptr<SqliteStorage> store = OpenOrDie(path);
    ASSERT_NE(store, nullptr);
    ASSERT_THAT(store->CreateStudy(MakeStudy("s1")), IsOk());
    ASSERT_THAT(store->CreateTrials("s1", std::vector<v1::Trial>(3)), IsOk());
  }
  ASSERT_THAT(ExecuteRaw(path,
                         "DROP INDEX trials_by_revision; ALTER TABLE trials DROP COLUMN revision; "
                         "UPDATE schema_version SET version = 5"),
              IsOk());
  std::unique_ptr<SqliteStorage> migrated = OpenOrDie(path);
  ASSERT_NE(migrated, nullptr);
  EXPECT_THAT(QueryRaw(path, "SELECT MAX(revision) FROM trials"), IsOkAndHolds("0"));
  auto ids = [](const TrialChanges& changes) {
    std::vector<int64_t> listed;
    for (const SerializedTrial& trial : changes.trials) listed.push_back(trial.id);
    return listed;
  };
  absl::StatusOr<TrialChanges> all = migrated->ListTrialChanges("s1", "");
  ASSERT_THAT(all, IsOk());
  EXPECT_THAT(ids(*all), ElementsAre(1, 2, 3));
  EXPECT_EQ(all->horizon, "0");
  absl::StatusOr<TrialChanges> none = migrated->ListTrialChanges("s1", all->horizon);
  ASSERT_THAT(none, IsOk());
  EXPECT_THAT(ids(*none), ::testing::IsEmpty());
  ASSERT_THAT(migrated->UpdateTrial("s1", 2,
                                    [](v1::Trial& trial) {
                                      trial.set_client_id("worker");
                                      return absl::OkStatus();
                                    }),
              IsOk());
  ASSERT_THAT(migrated->CreateTrials("s1", std::vector<v1::Trial>(1)), IsOk());
  absl::StatusOr<TrialChanges> written = migrated->ListTrialChanges("s1", all->horizon);
  ASSERT_THAT(written, IsOk());
  EXPECT_THAT(ids(*written), ElementsAre(2, 4));
  EXPECT_EQ(written->horizon, "2");
}

// The audit log's rows cannot be changed through SQLite; changed or removed
// around the triggers, the chain shows it.
TEST(SqliteStorageTest, AuditRowsAreAppendOnlyAndAChangedOrDeletedRowBreaksTheChain) {
  ScopedTempDir dir;
  const std::string path = dir.File("store.db");
  std::unique_ptr<SqliteStorage> store = OpenOrDie(path);
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

  EXPECT_THAT(ExecuteRaw(path, "UPDATE audit_log SET user_name = 'mallory' WHERE sequence = 2"),
              StatusIs(absl::StatusCode::kInternal, HasSubstr("append-only")));
  EXPECT_THAT(ExecuteRaw(path, "DELETE FROM audit_log WHERE sequence = 2"),
              StatusIs(absl::StatusCode::kInternal, HasSubstr("append-only")));
  EXPECT_TRUE(verify().intact());

  // Around the triggers: the body's bytes changed (alice becomes mallory).
  ASSERT_THAT(ExecuteRaw(path, "DROP TRIGGER audit_log_no_update; DROP TRIGGER audit_log_no_delete"),
              IsOk());
  ASSERT_THAT(ExecuteRaw(path,
                         "UPDATE audit_log SET body = CAST(replace(CAST(body AS TEXT), 'alice', "
                         "'malice') AS BLOB) WHERE sequence = 2"),
              IsOk());
  v1::VerifyAuditLogResponse changed = verify();
  EXPECT_FALSE(changed.intact());
  EXPECT_EQ(changed.first_bad_sequence(), 2);
  EXPECT_THAT(changed.problem(), HasSubstr("changed"));

  // A row removed, the others left as they were.
  ScopedTempDir other_dir;
  const std::string other_path = other_dir.File("store.db");
  std::unique_ptr<SqliteStorage> other = OpenOrDie(other_path);
  ASSERT_NE(other, nullptr);
  ASSERT_THAT(other->AppendAuditEntries(entries), IsOk());
  ASSERT_THAT(ExecuteRaw(other_path, "DROP TRIGGER audit_log_no_delete; "
                                     "DELETE FROM audit_log WHERE sequence = 3"),
              IsOk());
  absl::StatusOr<std::vector<StoredAuditRow>> rows = other->ReadAuditChain();
  ASSERT_THAT(rows, IsOk());
  const v1::VerifyAuditLogResponse deleted = VerifyAuditChain(*rows);
  EXPECT_FALSE(deleted.intact());
  EXPECT_EQ(deleted.first_bad_sequence(), 3);
  EXPECT_THAT(deleted.problem(), HasSubstr("deleted"));
}

// -------------------------------------------------------------- open errors

TEST(SqliteStorageTest, OpenCreatesParentDirectories) {
  ScopedTempDir dir;
  const std::string path = dir.File("a/b/c/store.db");
  std::unique_ptr<SqliteStorage> store = OpenOrDie(path);
  ASSERT_NE(store, nullptr);
  EXPECT_TRUE(std::filesystem::exists(path));
  EXPECT_EQ(store->path(), path);
}

TEST(SqliteStorageTest, OpenUnderAFileFailsNamingThePath) {
  ScopedTempDir dir;
  std::ofstream(dir.File("plain_file")) << "not a directory";
  const std::string path = dir.File("plain_file/store.db");
  EXPECT_THAT(SqliteStorage::Open(path),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       AllOf(HasSubstr(path), HasSubstr("creating directory"))));
}

TEST(SqliteStorageTest, OpenOfANonDatabaseFileFailsWithSqlitesMessage) {
  ScopedTempDir dir;
  const std::string path = dir.File("garbage.db");
  std::ofstream(path) << std::string(4096, 'x');
  EXPECT_THAT(SqliteStorage::Open(path),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       AllOf(HasSubstr(path), HasSubstr("not a database"))));
}

TEST(SqliteStorageTest, OpenOfAnUnwritableDirectoryFails) {
  if (geteuid() == 0) GTEST_SKIP() << "root writes anywhere";
  ScopedTempDir dir;
  std::filesystem::create_directory(dir.File("read_only"));
  std::filesystem::permissions(dir.File("read_only"), std::filesystem::perms::owner_read |
                                                          std::filesystem::perms::owner_exec);
  const std::string path = dir.File("read_only/store.db");
  EXPECT_THAT(SqliteStorage::Open(path),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       AllOf(HasSubstr(path), HasSubstr("cannot open SQLite database"))));
  std::filesystem::permissions(dir.File("read_only"), std::filesystem::perms::owner_all);
}

TEST(SqliteStorageTest, OpenRefusesAnInMemoryDatabase) {
  // Without WAL on a file nothing survives the process: refused, not ignored.
  EXPECT_THAT(SqliteStorage::Open(":memory:"),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       AllOf(HasSubstr(":memory:"), HasSubstr("journal mode"))));
}

TEST(SqliteStorageTest, OpenOfAnEmptyPathIsInvalidArgument) {
  EXPECT_THAT(SqliteStorage::Open(""),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("path is empty")));
}

TEST(SqliteStorageTest, DamagedRowIsInternalNamingIt) {
  ScopedTempDir dir;
  const std::string path = dir.File("store.db");
  std::unique_ptr<SqliteStorage> store = OpenOrDie(path);
  ASSERT_NE(store, nullptr);
  ASSERT_THAT(store->CreateStudy(MakeStudy("s1")), IsOk());
  ASSERT_THAT(ExecuteRaw(path, "UPDATE studies SET body = X'FF' WHERE name = 's1'"), IsOk());
  EXPECT_THAT(store->GetStudy("s1"),
              StatusIs(absl::StatusCode::kInternal,
                       AllOf(HasSubstr("study \"s1\""), HasSubstr("does not parse"))));
}

// ListTrialBodies hands bodies over unparsed, but not a body whose framing
// is broken: the page is refused naming the trial.
TEST(SqliteStorageTest, ABrokenTrialBodyIsInternalNamingTheTrialInAListOfBodies) {
  ScopedTempDir dir;
  const std::string path = dir.File("store.db");
  std::unique_ptr<SqliteStorage> store = OpenOrDie(path);
  ASSERT_NE(store, nullptr);
  ASSERT_THAT(store->CreateStudy(MakeStudy("s1")), IsOk());
  ASSERT_THAT(store->CreateTrials("s1", std::vector<v1::Trial>{MakeTrial(v1::Trial::ACTIVE),
                                                               MakeTrial(v1::Trial::ACTIVE)}),
              IsOk());
  // Field 2 (study_name) claims 100 bytes and has one.
  ASSERT_THAT(ExecuteRaw(path, "UPDATE trials SET body = X'126441' WHERE id = 2"), IsOk());
  ExpectTrialTwoOfS1RefusedInListsOfBodies(*store);
}

TEST(SqliteStorageTest, FailureAfterAWriteRollsBackTheWholeTransaction) {
  ScopedTempDir dir;
  const std::string path = dir.File("store.db");
  std::unique_ptr<SqliteStorage> store = OpenOrDie(path);
  ASSERT_NE(store, nullptr);
  ASSERT_THAT(store->CreateStudy(MakeStudy("s1")), IsOk());
  ASSERT_THAT(store->CreateTrials("s1", std::vector<v1::Trial>{MakeTrial(v1::Trial::ACTIVE)}),
              IsOk());
  // Triggers make the last write of a transaction fail after earlier ones
  // succeeded: the measurements inserted before the trial row's update, and
  // the study inserted before its job, must go too.
  ASSERT_THAT(ExecuteRaw(path,
                         "CREATE TRIGGER fail_trial_update BEFORE UPDATE ON trials "
                         "BEGIN SELECT RAISE(ABORT, 'injected trial failure'); END; "
                         "CREATE TRIGGER fail_job_insert BEFORE INSERT ON jobs "
                         "BEGIN SELECT RAISE(ABORT, 'injected job failure'); END;"),
              IsOk());
  const std::vector<v1::Measurement> report = {MakeMeasurement(1, 1), MakeMeasurement(2, 2)};
  EXPECT_THAT(store->AddMeasurements("s1", 1, report, {}),
              StatusIs(absl::StatusCode::kInternal,
                       AllOf(HasSubstr(path), HasSubstr("injected trial failure"))));
  EXPECT_THAT(store->CreateJob(MakeJob("job_1"), MakeStudy("job_1")),
              StatusIs(absl::StatusCode::kInternal, HasSubstr("injected job failure")));
  absl::StatusOr<std::string> measurements = QueryRaw(path, "SELECT COUNT(*) FROM measurements");
  ASSERT_THAT(measurements, IsOk());
  EXPECT_EQ(*measurements, "0");
  EXPECT_THAT(store->GetStudy("job_1"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("study \"job_1\" not found")));

  ASSERT_THAT(ExecuteRaw(path, "DROP TRIGGER fail_trial_update; DROP TRIGGER fail_job_insert;"),
              IsOk());
  absl::StatusOr<v1::Trial> trial = store->AddMeasurements("s1", 1, report, {});
  ASSERT_THAT(trial, IsOk());
  EXPECT_EQ(trial->measurement_count(), 2);
  EXPECT_THAT(store->CreateJob(MakeJob("job_1"), MakeStudy("job_1")), IsOk());
}

// ------------------------------------------------------------- concurrency

TEST(SqliteStorageTest, ReadsDoNotWaitForAWriter) {
  ScopedTempDir dir;
  const std::string path = dir.File("store.db");
  std::unique_ptr<SqliteStorage> store = OpenOrDie(path);
  ASSERT_NE(store, nullptr);
  ASSERT_THAT(store->CreateStudy(MakeStudy("s1")), IsOk());
  ASSERT_THAT(store->CreateTrials("s1", std::vector<v1::Trial>{MakeTrial(v1::Trial::ACTIVE)}),
              IsOk());
  // Inside the write transaction of UpdateTrial, a read on the same store
  // runs on another connection and sees the last committed state; one lock
  // over one connection would deadlock here.
  absl::StatusOr<v1::Trial> seen_inside;
  absl::StatusOr<v1::Trial> updated = store->UpdateTrial("s1", 1, [&](v1::Trial& trial) {
    trial.set_state(v1::Trial::SUCCEEDED);
    seen_inside = store->GetTrial("s1", 1, false);
    return absl::OkStatus();
  });
  ASSERT_THAT(updated, IsOk());
  ASSERT_THAT(seen_inside, IsOk());
  EXPECT_EQ(seen_inside->state(), v1::Trial::ACTIVE);
  absl::StatusOr<v1::Trial> after = store->GetTrial("s1", 1, false);
  ASSERT_THAT(after, IsOk());
  EXPECT_EQ(after->state(), v1::Trial::SUCCEEDED);
  EXPECT_EQ(store->open_connections(), 2);
}

TEST(SqliteStorageTest, ReadsProceedWhileAnotherProcessHoldsTheWriteLock) {
  ScopedTempDir dir;
  const std::string path = dir.File("store.db");
  std::unique_ptr<SqliteStorage> store = OpenOrDie(path);
  ASSERT_NE(store, nullptr);
  ASSERT_THAT(store->CreateStudy(MakeStudy("s1")), IsOk());
  WriteLockHolder holder(path);
  ASSERT_EQ(sqlite3_exec(holder.db(), "DELETE FROM studies", nullptr, nullptr, nullptr), SQLITE_OK);
  // The uncommitted delete is invisible, and the read does not wait for it.
  const absl::Time start = absl::Now();
  EXPECT_THAT(store->GetStudy("s1"), IsOk());
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
}

TEST(SqliteStorageTest, WriterGivesUpAfterTheBusyTimeoutThenRecovers) {
  ScopedTempDir dir;
  const std::string path = dir.File("store.db");
  SqliteStorageOptions options;
  options.busy_timeout = absl::Milliseconds(200);
  std::unique_ptr<SqliteStorage> store = OpenOrDie(path, options);
  ASSERT_NE(store, nullptr);
  {
    WriteLockHolder holder(path);
    const absl::Time start = absl::Now();
    EXPECT_THAT(store->CreateStudy(MakeStudy("s1")),
                StatusIs(absl::StatusCode::kInternal,
                         AllOf(HasSubstr(path), HasSubstr("database is locked"))));
    const absl::Duration waited = absl::Now() - start;
    EXPECT_GE(waited, absl::Milliseconds(150));
    EXPECT_LT(waited, absl::Seconds(5));
  }
  EXPECT_THAT(store->CreateStudy(MakeStudy("s1")), IsOk());
}

TEST(SqliteStorageTest, WriterWaitsForALockReleasedWithinTheTimeout) {
  ScopedTempDir dir;
  const std::string path = dir.File("store.db");
  std::unique_ptr<SqliteStorage> store = OpenOrDie(path);
  ASSERT_NE(store, nullptr);
  auto holder = std::make_unique<WriteLockHolder>(path);
  std::atomic<bool> started = false;
  absl::Status result = absl::UnknownError("not run");
  std::thread writer([&] {
    started = true;
    result = store->CreateStudy(MakeStudy("s1")).status();
  });
  while (!started.load()) std::this_thread::yield();
  // The writer is blocked on the lock (or about to be); releasing it lets the
  // write through well within the 10 s busy timeout.
  absl::SleepFor(absl::Milliseconds(50));
  holder.reset();
  writer.join();
  EXPECT_THAT(result, IsOk());
}

TEST(SqliteStorageTest, PoolOpensConnectionsLazilyAndStaysWithinItsBound) {
  ScopedTempDir dir;
  const std::string path = dir.File("store.db");
  SqliteStorageOptions options;
  options.max_connections = 2;
  std::unique_ptr<SqliteStorage> store = OpenOrDie(path, options);
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->open_connections(), 1);
  ASSERT_THAT(store->CreateStudy(MakeStudy("s1")), IsOk());
  EXPECT_EQ(store->open_connections(), 1);
  std::atomic<int> failures = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 30; ++i) {
        if (!store->GetStudy("s1").ok()) ++failures;
        if (store->open_connections() > 2) ++failures;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_LE(store->open_connections(), 2);
}

TEST(SqliteStorageTest, TwoStoresOnOneFileNeverDuplicateIds) {
  ScopedTempDir dir;
  const std::string path = dir.File("store.db");
  std::unique_ptr<SqliteStorage> first = OpenOrDie(path);
  std::unique_ptr<SqliteStorage> second = OpenOrDie(path);
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  ASSERT_THAT(first->CreateStudy(MakeStudy("s1")), IsOk());
  constexpr int kThreads = 4;
  constexpr int kTrialsPerThread = 15;
  std::atomic<int> failures = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    SqliteStorage* store = t % 2 == 0 ? first.get() : second.get();
    threads.emplace_back([&, store] {
      for (int i = 0; i < kTrialsPerThread; ++i) {
        if (!store->CreateTrials("s1", std::vector<v1::Trial>{MakeTrial(v1::Trial::ACTIVE)}).ok()) {
          ++failures;
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  absl::StatusOr<Page<v1::Trial>> trials = second->ListTrials("s1", TrialQuery{});
  ASSERT_THAT(trials, IsOk());
  ASSERT_THAT(trials->items, SizeIs(kThreads * kTrialsPerThread));
  for (size_t i = 0; i < trials->items.size(); ++i) {
    EXPECT_EQ(trials->items[i].id(), static_cast<int64_t>(i) + 1);
  }
}

// ----------------------------------------------------------------- factory

TEST(OpenStorageTest, OpensSqliteUrlsAndPlainPaths) {
  ScopedTempDir dir;
  for (const std::string& url : {"sqlite:" + dir.File("a/store.db"),
                                 "SQLite:" + dir.File("b/store.db"), dir.File("c/store.db")}) {
    absl::StatusOr<std::unique_ptr<Storage>> store = OpenStorage(url);
    ASSERT_THAT(store, IsOk()) << url;
    EXPECT_THAT((*store)->CreateStudy(MakeStudy("s1")), IsOk());
  }
  EXPECT_TRUE(std::filesystem::exists(dir.File("a/store.db")));
  EXPECT_TRUE(std::filesystem::exists(dir.File("b/store.db")));
  EXPECT_TRUE(std::filesystem::exists(dir.File("c/store.db")));
}

TEST(OpenStorageTest, PostgresqlUrlsOpenThePostgresStore) {
  // Port 1 refuses at once: the PostgreSQL store was tried, and its error
  // names the server without the password.
  for (const char* url :
       {"postgresql://vernier:secret@127.0.0.1:1/vernier", "postgres://127.0.0.1:1/vernier"}) {
    absl::StatusOr<std::unique_ptr<Storage>> store = OpenStorage(url);
    EXPECT_THAT(store, StatusIs(absl::StatusCode::kUnavailable,
                                AllOf(HasSubstr("127.0.0.1:1/vernier"), Not(HasSubstr("secret")))))
        << url;
  }
  EXPECT_EQ(DescribeStorageUrl("postgresql://vernier:secret@db:5432/v"),
            "postgresql://vernier:***@db:5432/v");
  EXPECT_EQ(DescribeStorageUrl("sqlite:/tmp/a:b@c"), "sqlite:/tmp/a:b@c");
}

TEST(OpenStorageTest, RejectsEmptyUnknownAndPathlessUrls) {
  EXPECT_THAT(OpenStorage(""),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("--db is empty"), HasSubstr("sqlite:PATH"))));
  EXPECT_THAT(
      OpenStorage("mysql://x"),
      StatusIs(absl::StatusCode::kInvalidArgument,
               AllOf(HasSubstr("\"mysql://x\""), HasSubstr("\"mysql:\""), HasSubstr("sqlite:PATH"),
                     HasSubstr("plain file path"), HasSubstr("postgresql://"))));
  EXPECT_THAT(OpenStorage("sqlite:"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("names no file"), HasSubstr("sqlite:PATH"))));
}

TEST(OpenStorageTest, PassesOpenErrorsThrough) {
  ScopedTempDir dir;
  std::ofstream(dir.File("plain_file")) << "not a directory";
  EXPECT_THAT(OpenStorage("sqlite:" + dir.File("plain_file/store.db")),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("plain_file/store.db")));
}

}  // namespace
}  // namespace vernier::storage::testing
