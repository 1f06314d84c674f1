#include "tests/support/postgres_test_server.h"

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "tests/support/source_script.h"
#include "tests/support/subprocess.h"

namespace vernier::testing {

absl::StatusOr<std::unique_ptr<PostgresTestServer>> PostgresTestServer::Start() {
  absl::StatusOr<std::string> dir = RunSourceScript("postgres-up.sh");
  if (!dir.ok()) return dir.status();
  const std::string url(absl::StripAsciiWhitespace(ReadFile(*dir + "/url")));
  if (url.empty()) return absl::UnavailableError(absl::StrCat(*dir, "/url is empty"));
  return std::unique_ptr<PostgresTestServer>(new PostgresTestServer(*dir, url));
}

PostgresTestServer::PostgresTestServer(std::string dir, std::string url)
    : dir_(std::move(dir)), url_(std::move(url)) {}

PostgresTestServer::~PostgresTestServer() {
  // A stopped server leaves its pid file naming a PID that is gone: the
  // script only removes the directory then.
  (void)RunSourceScript("postgres-down.sh", {dir_});
}

absl::Status PostgresTestServer::Stop(const std::string& mode) {
  return RunSourceScript("postgres-restart.sh", {dir_, "stop", mode}).status();
}

absl::Status PostgresTestServer::StartAgain() {
  return RunSourceScript("postgres-restart.sh", {dir_, "start"}).status();
}

}  // namespace vernier::testing
