// `vernier serve` checks its SQLite database at start: a corrupted file or
// one it cannot write stops it there with a message naming the file, instead
// of failing the first read or write a client makes.
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/job_client.h"
#include "tests/support/server_process.h"
#include "tests/support/subprocess.h"

namespace vernier::testing {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

// The user the read-only test runs the server as when the test runs as root,
// for whom file permissions do not bind.
constexpr uid_t kNobody = 65534;

std::vector<std::string> ServeArgv(const std::string& data_dir) {
  return {BinaryPath("vernier"), "serve", "--port", "0", "--data-dir", data_dir};
}

// A data dir holding a database that a server created and closed.
void CreateDatabase(const std::string& data_dir) {
  ServerProcess server(data_dir);
  server.Start();
  server.Stop();
  for (const char* suffix : {"-wal", "-shm"}) {
    ASSERT_FALSE(std::filesystem::exists(data_dir + "/vernier.db" + suffix))
        << "the server left its WAL behind";
  }
}

void Overwrite(const std::string& path, std::streamoff offset, std::streamsize size) {
  std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
  ASSERT_TRUE(file.good()) << path;
  file.seekp(offset);
  const std::string garbage(static_cast<size_t>(size), '\xa5');
  file.write(garbage.data(), size);
  ASSERT_TRUE(file.good()) << path;
}

// The page number of `table`'s root and the page size of the database at
// `path`, or {0, 0} when they cannot be read.
std::pair<int64_t, int64_t> RootPage(const std::string& path, const std::string& table) {
  sqlite3* db = nullptr;
  std::pair<int64_t, int64_t> result{0, 0};
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* statement = nullptr;
    const std::string sql =
        "SELECT rootpage, (SELECT page_size FROM pragma_page_size) "
        "FROM sqlite_schema WHERE type = 'table' AND name = '" +
        table + "'";
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &statement, nullptr) == SQLITE_OK &&
        sqlite3_step(statement) == SQLITE_ROW) {
      result = {sqlite3_column_int64(statement, 0), sqlite3_column_int64(statement, 1)};
    }
    sqlite3_finalize(statement);
  }
  sqlite3_close(db);
  return result;
}

// Every directory and file under `root` that others than its owner may
// read, write or enter, with its mode.
std::vector<std::string> OpenToOthers(const std::string& root) {
  std::vector<std::string> open;
  const auto check = [&open](const std::filesystem::path& path) {
    struct stat info = {};
    if (lstat(path.c_str(), &info) != 0 || S_ISLNK(info.st_mode) || S_ISSOCK(info.st_mode)) return;
    if ((info.st_mode & 077) != 0) {
      char mode[8];
      std::snprintf(mode, sizeof(mode), "%04o", info.st_mode & 07777);
      open.push_back(path.string() + " " + mode);
    }
  };
  check(root);
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) check(entry.path());
  return open;
}

TEST(DataDirCheckTest, ANewDataDirAndEverythingTheServerWritesInItAreItsUsersOnly) {
  TempDir dir;
  // A new data dir: the server creates it, its database and its admin token.
  const std::string fresh = dir.path() + "/fresh/data";
  RunCommand(ServeArgv(fresh), std::chrono::seconds(3),
             {{"VERNIER_CONFIG_DIR", dir.path() + "/config"}});
  ASSERT_TRUE(std::filesystem::exists(fresh + "/vernier.db"));
  ASSERT_TRUE(std::filesystem::exists(fresh + "/admin.token"));
  EXPECT_THAT(OpenToOthers(fresh), IsEmpty());
  // The token file it wrote for its address, and the folders above it.
  ASSERT_TRUE(std::filesystem::exists(dir.path() + "/config/tokens"));
  EXPECT_THAT(OpenToOthers(dir.path() + "/config"), IsEmpty());

  // A running server's WAL, a job's folders, logs and agent credential (the
  // test's harness makes the data dir and its serve.log: closed here).
  const std::string data_dir = dir.path() + "/data";
  ServerProcess server(data_dir);
  ASSERT_EQ(chmod(data_dir.c_str(), 0700), 0);
  server.Start();
  ASSERT_EQ(chmod((data_dir + "/serve.log").c_str(), 0600), 0);
  const std::string config = dir.path() + "/hp.yaml";
  WriteFile(config, SmallConfig(1, 1, 1));
  const CommandResult submitted =
      RunCommand(Submit(server, "private", config, data_dir + "/jobs/private",
                        {"/bin/sh", "-c", "echo accuracy=0.5", "trainer"}),
                 std::chrono::seconds(60));
  ASSERT_EQ(submitted.exit_code, 0) << submitted.err;
  WaitForJob(server, "private", Ended);
  ASSERT_TRUE(std::filesystem::exists(data_dir + "/vernier.db-wal")) << "the server holds its WAL";
  ASSERT_TRUE(std::filesystem::exists(data_dir + "/jobs/private"));
  EXPECT_THAT(OpenToOthers(data_dir), IsEmpty());
  EXPECT_THAT(server.log(), Not(HasSubstr("other users may")));
}

TEST(DataDirCheckTest, ADataDirOthersMayReadIsWarnedOfAtStart) {
  TempDir dir;
  const std::string data_dir = dir.path() + "/data";
  CreateDatabase(data_dir);
  ASSERT_EQ(chmod(data_dir.c_str(), 0755), 0);
  ASSERT_EQ(chmod((data_dir + "/vernier.db").c_str(), 0644), 0);
  ServerProcess server(data_dir);
  server.Start();
  EXPECT_THAT(server.log(),
              HasSubstr("the data directory " + data_dir +
                        " is mode 0755: other users may read what it holds (the database, "
                        "jobs' commands and environments, logs, tokens); chmod 700 " +
                        data_dir));
  EXPECT_THAT(server.log(), HasSubstr(data_dir +
                                      "/vernier.db is mode 0644: other users may read "
                                      "it; chmod 600 " +
                                      data_dir + "/vernier.db"));
}

TEST(DataDirCheckTest, AFileThatIsNotADatabaseStopsTheServerAtStart) {
  TempDir dir;
  const std::string data_dir = dir.path() + "/data";
  std::filesystem::create_directories(data_dir);
  const std::string db = data_dir + "/vernier.db";
  std::ofstream(db) << std::string(8192, '\x17');

  const CommandResult serve = RunCommand(ServeArgv(data_dir), std::chrono::seconds(30));
  EXPECT_NE(serve.exit_code, 0);
  EXPECT_THAT(serve.err + serve.out, AllOf(HasSubstr(db), HasSubstr("not a database")));
}

TEST(DataDirCheckTest, ACorruptedDatabaseStopsTheServerAtStartNamingTheFile) {
  TempDir dir;
  const std::string data_dir = dir.path() + "/data";
  CreateDatabase(data_dir);
  const std::string db = data_dir + "/vernier.db";
  // The measurements table's root page, which starting a server never reads,
  // becomes garbage.
  const auto [page, page_size] = RootPage(db, "measurements");
  ASSERT_GT(page, 1);
  Overwrite(db, static_cast<std::streamoff>(page - 1) * page_size, page_size);

  const CommandResult serve = RunCommand(ServeArgv(data_dir), std::chrono::seconds(30));
  EXPECT_NE(serve.exit_code, 0);
  EXPECT_THAT(serve.err + serve.out, AllOf(HasSubstr(db), HasSubstr("corrupt")));
}

TEST(DataDirCheckTest, ADatabaseTheServerCannotWriteStopsItAtStartNamingTheFile) {
  TempDir dir;
  const std::string data_dir = dir.path() + "/data";
  CreateDatabase(data_dir);
  const std::string db = data_dir + "/vernier.db";
  ASSERT_EQ(::chmod(db.c_str(), 0444), 0);
  std::vector<std::string> argv = ServeArgv(data_dir);
  if (::geteuid() == 0) {
    // Root writes any file whatever its mode, so the server runs as nobody,
    // in a data dir nobody owns, on a database root owns.
    ASSERT_EQ(::chmod(dir.path().c_str(), 0755), 0);
    ASSERT_EQ(::chown(data_dir.c_str(), kNobody, kNobody), 0);
    std::filesystem::remove(db + ".server.lock");
    argv.insert(argv.begin(), {"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"});
  }

  const CommandResult serve = RunCommand(argv, std::chrono::seconds(30));
  EXPECT_NE(serve.exit_code, 0);
  EXPECT_THAT(serve.err + serve.out, AllOf(HasSubstr(db), HasSubstr("read-only")));
}

}  // namespace
}  // namespace vernier::testing
