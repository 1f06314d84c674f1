// Issue 19 part 7 through the real binaries: the audit log records every
// change and every refused call (reads only with --audit-data-access), with
// the caller, resource, outcome and peer (an HTTP client's own address for
// calls through the HTTP API), never a token; `vernier audit list` filters
// it; `vernier audit verify` finds a row changed or deleted in the database
// behind the server's back, on SQLite and on PostgreSQL; servers sharing a
// PostgreSQL database keep one chain.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <map>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "google/protobuf/util/json_util.h"
#include "tests/support/job_client.h"
#include "tests/support/postgres_test_database.h"
#include "tests/support/server_process.h"
#include "tests/support/store_test.h"
#include "tests/support/subprocess.h"
#include "tests/support/test_database.h"
#include "tuner/storage/audit_chain.h"
#include "vernier/v1/audit_service.pb.h"

namespace vernier::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// `vernier ARGS` against `server`, with `token` in $VERNIER_TOKEN (empty:
// the server's own admin token file).
CommandResult Vernier(const ServerProcess& server, std::vector<std::string> args,
                      const std::string& token = "") {
  std::map<std::string, std::string> env;
  if (!token.empty()) env["VERNIER_TOKEN"] = token;
  return RunCommand(Cli(server, std::move(args)), std::chrono::seconds(60), env);
}

std::vector<v1::AuditEntry> AuditList(const ServerProcess& server,
                                      std::vector<std::string> filters = {}) {
  std::vector<std::string> args = {"audit", "list", "--format", "json"};
  args.insert(args.end(), filters.begin(), filters.end());
  const CommandResult listed = Vernier(server, args);
  EXPECT_EQ(listed.exit_code, 0) << listed.err;
  v1::ListAuditEntriesResponse response;
  const auto parsed = google::protobuf::util::JsonStringToMessage(listed.out, &response);
  EXPECT_TRUE(parsed.ok()) << parsed.ToString() << "\n" << listed.out;
  return {response.entries().begin(), response.entries().end()};
}

const v1::AuditEntry* FindEntry(const std::vector<v1::AuditEntry>& entries,
                                const std::string& method, const std::string& user) {
  for (const v1::AuditEntry& entry : entries) {
    if (absl::EndsWith(entry.method(), method) && entry.user() == user) return &entry;
  }
  return nullptr;
}

std::string HttpBase(const ServerProcess& server) {
  const std::regex url("dashboard and HTTP API at (https?://\\S+/)");
  std::smatch match;
  const std::string log = server.log();
  return std::regex_search(log, match, url) ? std::string(match[1]) : "";
}

class AuditLogTest : public StoreTest {
 protected:
  std::unique_ptr<ServerProcess> StartServer(const std::string& name = "server") {
    std::unique_ptr<ServerProcess> server = MakeServer(name);
    server->Start();
    return server;
  }

  // Runs SQL on the server's database behind its back.
  void Tamper(const std::string& sqlite_sql, const std::string& postgres_sql) {
    if (database_->kind() == StoreKind::kPostgres) {
      ASSERT_TRUE(database_->postgres()->Execute(postgres_sql).ok());
      return;
    }
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(database_->sqlite_path().c_str(), &db), SQLITE_OK);
    sqlite3_busy_timeout(db, 10000);
    char* message = nullptr;
    const int result = sqlite3_exec(db, sqlite_sql.c_str(), nullptr, nullptr, &message);
    const std::string text = message != nullptr ? message : "";
    sqlite3_free(message);
    sqlite3_close(db);
    ASSERT_EQ(result, SQLITE_OK) << text;
  }
};

TEST_P(AuditLogTest, ChangesAndRefusalsAreRecordedReadsAreNotAndTokensNever) {
  std::unique_ptr<ServerProcess> server = StartServer();
  const CommandResult created =
      Vernier(*server, {"tokens", "create", "--user", "vic", "--role", "viewer"});
  ASSERT_EQ(created.exit_code, 0) << created.err;
  const std::string vic = FirstLine(created.out);
  // A read: not recorded. A viewer's cancel and a bad token: refused, recorded.
  EXPECT_EQ(Vernier(*server, {"studies", "list"}, vic).exit_code, 0);
  EXPECT_NE(Vernier(*server, {"jobs", "cancel", "vics_target"}, vic).exit_code, 0);
  EXPECT_NE(Vernier(*server, {"jobs", "list"}, "vnr_not_a_token").exit_code, 0);
  // A change through the HTTP API, from curl's own address.
  const std::string base = HttpBase(*server);
  ASSERT_FALSE(base.empty()) << server->log();
  const std::string admin =
      std::string(absl::StripAsciiWhitespace(ReadFile(server->data_dir() + "/admin.token")));
  const CommandResult http =
      RunCommand({"curl", "-sS", "-X", "POST", "-H", "Authorization: Bearer " + admin,
                  base + "v1/projects/-/jobs/http_target:cancel"},
                 std::chrono::seconds(60));
  ASSERT_EQ(http.exit_code, 0) << http.err;

  const std::vector<v1::AuditEntry> entries = AuditList(*server);
  const v1::AuditEntry* token = FindEntry(entries, "AuthService/CreateToken", "admin");
  if (token == nullptr) {
    // The server's own user owns the admin token: find it by method alone.
    for (const v1::AuditEntry& entry : entries) {
      if (absl::EndsWith(entry.method(), "CreateToken")) token = &entry;
    }
  }
  ASSERT_NE(token, nullptr);
  EXPECT_EQ(token->code(), 0);
  EXPECT_EQ(token->role(), v1::ADMIN);
  EXPECT_THAT(token->summary(), HasSubstr("vic"));
  EXPECT_THAT(token->peer(), HasSubstr("127.0.0.1"));
  EXPECT_FALSE(token->data_access());

  const v1::AuditEntry* denied = FindEntry(entries, "JobService/CancelJob", "vic");
  ASSERT_NE(denied, nullptr);
  EXPECT_EQ(denied->code(), 7) << "PERMISSION_DENIED";
  EXPECT_EQ(denied->resource(), "vics_target");
  EXPECT_EQ(denied->role(), v1::VIEWER);

  const v1::AuditEntry* unauthenticated = FindEntry(entries, "JobService/ListJobs", "");
  ASSERT_NE(unauthenticated, nullptr);
  EXPECT_EQ(unauthenticated->code(), 16) << "UNAUTHENTICATED";

  EXPECT_EQ(FindEntry(entries, "StudyService/ListStudies", "vic"), nullptr)
      << "a read is data access, off by default";

  const v1::AuditEntry* through_http = nullptr;
  for (const v1::AuditEntry& entry : entries) {
    if (entry.resource() == "http_target") through_http = &entry;
  }
  ASSERT_NE(through_http, nullptr);
  EXPECT_EQ(through_http->code(), 5) << "NOT_FOUND";
  EXPECT_THAT(through_http->peer(), HasSubstr("127.0.0.1"));
  EXPECT_THAT(through_http->peer(), HasSubstr("(http)"));
  EXPECT_THAT(through_http->peer(), Not(HasSubstr("inproc")));

  // No token anywhere in the log.
  const CommandResult all = Vernier(*server, {"audit", "list", "--format", "json"});
  EXPECT_THAT(all.out, Not(HasSubstr(vic)));
  EXPECT_THAT(all.out, Not(HasSubstr(admin)));
  EXPECT_THAT(all.out, Not(HasSubstr("vnr_not_a_token")));

  // Filters.
  for (const v1::AuditEntry& entry : AuditList(*server, {"--user", "vic"})) {
    EXPECT_EQ(entry.user(), "vic");
  }
  EXPECT_EQ(AuditList(*server, {"--resource", "vics_target"}).size(), 1u);
  EXPECT_FALSE(AuditList(*server, {"--since", "1h"}).empty());
  EXPECT_TRUE(AuditList(*server, {"--since", "2099-01-01T00:00:00Z"}).empty());
  const CommandResult bad_since = Vernier(*server, {"audit", "list", "--since", "yesterday"});
  EXPECT_NE(bad_since.exit_code, 0);
  EXPECT_THAT(bad_since.err, HasSubstr("--since"));
  const CommandResult table = Vernier(*server, {"audit", "list", "--user", "vic"});
  EXPECT_EQ(table.exit_code, 0) << table.err;
  EXPECT_THAT(table.out, HasSubstr("PERMISSION_DENIED"));

  const CommandResult verified = Vernier(*server, {"audit", "verify"});
  EXPECT_EQ(verified.exit_code, 0) << verified.err;
  EXPECT_THAT(verified.out, HasSubstr("intact"));
  // Only an admin reads the log.
  const CommandResult as_viewer = Vernier(*server, {"audit", "list"}, vic);
  EXPECT_NE(as_viewer.exit_code, 0);
  EXPECT_THAT(as_viewer.err, HasSubstr("PERMISSION_DENIED"));
}

TEST_P(AuditLogTest, VerifyFindsARowChangedInTheDatabase) {
  std::unique_ptr<ServerProcess> server = StartServer();
  for (const char* job : {"a", "b", "c"}) Vernier(*server, {"jobs", "cancel", job});
  ASSERT_EQ(Vernier(*server, {"audit", "verify"}).exit_code, 0);
  Tamper(
      "DROP TRIGGER audit_log_no_update; "
      "UPDATE audit_log SET resource = 'z' WHERE resource = 'b'",
      "ALTER TABLE audit_log DISABLE TRIGGER USER; "
      "UPDATE audit_log SET resource = 'z' WHERE resource = 'b'");
  const CommandResult verified = Vernier(*server, {"audit", "verify"});
  EXPECT_NE(verified.exit_code, 0);
  EXPECT_THAT(verified.err, HasSubstr("not intact"));
  EXPECT_THAT(verified.err, HasSubstr("changed"));
}

TEST_P(AuditLogTest, VerifyFindsARowDeletedFromTheDatabase) {
  std::unique_ptr<ServerProcess> server = StartServer();
  for (const char* job : {"a", "b", "c"}) Vernier(*server, {"jobs", "cancel", job});
  ASSERT_EQ(Vernier(*server, {"audit", "verify"}).exit_code, 0);
  Tamper("DROP TRIGGER audit_log_no_delete; DELETE FROM audit_log WHERE resource = 'b'",
         "ALTER TABLE audit_log DISABLE TRIGGER USER; DELETE FROM audit_log WHERE resource = 'b'");
  const CommandResult verified = Vernier(*server, {"audit", "verify"});
  EXPECT_NE(verified.exit_code, 0);
  EXPECT_THAT(verified.err, HasSubstr("deleted"));
}

// The attack, by whoever can write the database file (a trainer
// runs as the server's user): drop the triggers, delete a row, renumber and
// rehash the rows after it, restore the triggers. The chain alone passes;
// a head noted before, given to verify, fails it.
TEST_P(AuditLogTest, ARowDeletedAndTheRestRehashedFailsVerifyAgainstANotedHead) {
  if (database_->kind() == StoreKind::kPostgres) GTEST_SKIP() << "the attack is scripted on SQLite";
  std::unique_ptr<ServerProcess> server = StartServer();
  for (const char* job : {"a", "b", "c"}) Vernier(*server, {"jobs", "cancel", job});
  const CommandResult before = Vernier(*server, {"audit", "verify"});
  ASSERT_EQ(before.exit_code, 0) << before.err;
  std::smatch noted;
  ASSERT_TRUE(std::regex_search(before.out, noted, std::regex("with hash ([0-9a-f]{64})")))
      << before.out;
  const std::string head = noted[1];
  const CommandResult held = Vernier(*server, {"audit", "verify", "--head", head});
  EXPECT_EQ(held.exit_code, 0) << held.err;
  EXPECT_THAT(held.out, HasSubstr("it still holds the head noted before (row"));

  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(database_->sqlite_path().c_str(), &db), SQLITE_OK);
  sqlite3_busy_timeout(db, 10000);
  ASSERT_EQ(sqlite3_exec(db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
  std::vector<storage::StoredAuditRow> rows;
  sqlite3_stmt* select = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db,
                               "SELECT sequence, time_micros, user_name, resource, body, hash "
                               "FROM audit_log ORDER BY sequence",
                               -1, &select, nullptr),
            SQLITE_OK);
  const auto text = [select](int column) {
    return std::string(static_cast<const char*>(sqlite3_column_blob(select, column)),
                       sqlite3_column_bytes(select, column));
  };
  while (sqlite3_step(select) == SQLITE_ROW) {
    rows.push_back({sqlite3_column_int64(select, 0), sqlite3_column_int64(select, 1), text(2),
                    text(3), text(4), text(5)});
  }
  sqlite3_finalize(select);
  const auto removed =
      std::find_if(rows.begin(), rows.end(), [](const auto& row) { return row.resource == "b"; });
  ASSERT_NE(removed, rows.end());
  rows.erase(removed);
  std::string previous;
  for (size_t i = 0; i < rows.size(); ++i) {
    rows[i].sequence = static_cast<int64_t>(i) + 1;
    rows[i].hash = storage::AuditRowHash(previous, rows[i]);
    previous = rows[i].hash;
  }
  ASSERT_EQ(sqlite3_exec(db,
                         "DROP TRIGGER audit_log_no_delete; DROP TRIGGER audit_log_no_update; "
                         "DELETE FROM audit_log",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_stmt* insert = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db,
                               "INSERT INTO audit_log (sequence, time_micros, user_name, "
                               "resource, body, hash) VALUES (?, ?, ?, ?, ?, ?)",
                               -1, &insert, nullptr),
            SQLITE_OK);
  for (const storage::StoredAuditRow& row : rows) {
    sqlite3_bind_int64(insert, 1, row.sequence);
    sqlite3_bind_int64(insert, 2, row.time_micros);
    sqlite3_bind_text(insert, 3, row.user.data(), static_cast<int>(row.user.size()), SQLITE_STATIC);
    sqlite3_bind_text(insert, 4, row.resource.data(), static_cast<int>(row.resource.size()),
                      SQLITE_STATIC);
    sqlite3_bind_blob(insert, 5, row.body.data(), static_cast<int>(row.body.size()), SQLITE_STATIC);
    sqlite3_bind_text(insert, 6, row.hash.data(), static_cast<int>(row.hash.size()), SQLITE_STATIC);
    ASSERT_EQ(sqlite3_step(insert), SQLITE_DONE);
    sqlite3_reset(insert);
  }
  sqlite3_finalize(insert);
  ASSERT_EQ(sqlite3_exec(db,
                         "CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log "
                         "BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END; "
                         "CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log "
                         "BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END; "
                         "COMMIT",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);

  // The chain alone cannot tell (it has no key).
  EXPECT_EQ(Vernier(*server, {"audit", "verify"}).exit_code, 0);
  const CommandResult verified = Vernier(*server, {"audit", "verify", "--head", head});
  EXPECT_EQ(verified.exit_code, 1);
  EXPECT_THAT(verified.err, HasSubstr("DATA_LOSS: the audit log is not intact: no row has the "
                                      "hash " +
                                      head + " of the head noted before"));
  // A head that is no hash is refused, naming it.
  const CommandResult malformed = Vernier(*server, {"audit", "verify", "--head", "abc"});
  EXPECT_EQ(malformed.exit_code, 1);
  EXPECT_THAT(malformed.err, HasSubstr("INVALID_ARGUMENT: head_hash \"abc\" is not an audit "
                                       "row's hash"));
}

// Two servers on one PostgreSQL database, called at once: one chain.
TEST_P(AuditLogTest, TwoServersOnOneDatabaseKeepOneChain) {
  if (GetParam() != StoreKind::kPostgres) GTEST_SKIP() << "one server per SQLite file";
  std::unique_ptr<ServerProcess> first = StartServer("first");
  std::unique_ptr<ServerProcess> second = StartServer("second");
  constexpr int kCalls = 8;
  std::vector<std::thread> callers;
  for (ServerProcess* server : {first.get(), second.get()}) {
    callers.emplace_back([server] {
      for (int i = 0; i < kCalls; ++i) {
        Vernier(*server, {"jobs", "cancel", "nope" + std::to_string(i)});
      }
    });
  }
  for (std::thread& caller : callers) caller.join();
  const CommandResult verified = Vernier(*first, {"audit", "verify", "--format", "json"});
  EXPECT_EQ(verified.exit_code, 0) << verified.err;
  v1::VerifyAuditLogResponse response;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(verified.out, &response).ok())
      << verified.out;
  EXPECT_TRUE(response.intact()) << response.problem();
  int cancels = 0;
  for (const v1::AuditEntry& entry : AuditList(*second)) {
    if (absl::EndsWith(entry.method(), "CancelJob")) ++cancels;
  }
  EXPECT_EQ(cancels, 2 * kCalls);
}

VERNIER_INSTANTIATE_FOR_EVERY_STORE(AuditLogTest);

// Data access (reads, measurement writes) only when the server is asked.
TEST(AuditDataAccessTest, ReadsAreRecordedWithAuditDataAccess) {
  TempDir dir;
  ServerProcess server(dir.path() + "/data", 0, {"--audit-data-access"});
  server.Start();
  ASSERT_EQ(Vernier(server, {"studies", "list"}).exit_code, 0);
  bool found = false;
  for (const v1::AuditEntry& entry : AuditList(server)) {
    if (absl::EndsWith(entry.method(), "ListStudies")) {
      found = true;
      EXPECT_TRUE(entry.data_access());
      EXPECT_EQ(entry.code(), 0);
    }
  }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace vernier::testing
