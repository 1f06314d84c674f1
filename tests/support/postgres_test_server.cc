#include "tests/support/postgres_test_server.h"

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "tests/support/subprocess.h"

namespace vernier::testing {
namespace {

absl::Status Run(const std::vector<std::string>& argv) {
  const CommandResult result = RunCommand(argv, std::chrono::seconds(120));
  if (result.exit_code == 0) return absl::OkStatus();
  return absl::UnavailableError(absl::StrCat(argv[0], " ", argv.size() > 2 ? argv[2] : "",
                                             " exited with ", result.exit_code, ": ", result.err,
                                             result.out));
}

}  // namespace

absl::StatusOr<std::unique_ptr<PostgresTestServer>> PostgresTestServer::Start() {
  const CommandResult up =
      RunCommand({SourcePath("scripts/postgres-up.sh")}, std::chrono::seconds(120));
  if (up.exit_code != 0) {
    return absl::UnavailableError(
        absl::StrCat("scripts/postgres-up.sh exited with ", up.exit_code, ": ", up.err));
  }
  const std::string dir(absl::StripAsciiWhitespace(up.out));
  const std::string url(absl::StripAsciiWhitespace(ReadFile(dir + "/url")));
  if (url.empty()) return absl::UnavailableError(absl::StrCat(dir, "/url is empty"));
  return std::unique_ptr<PostgresTestServer>(new PostgresTestServer(dir, url));
}

PostgresTestServer::PostgresTestServer(std::string dir, std::string url)
    : dir_(std::move(dir)), url_(std::move(url)) {}

PostgresTestServer::~PostgresTestServer() {
  // A stopped server leaves its pid file naming a PID that is gone: the
  // script only removes the directory then.
  (void)Run({SourcePath("scripts/postgres-down.sh"), dir_});
}

absl::Status PostgresTestServer::Stop(const std::string& mode) {
  return Run({SourcePath("scripts/postgres-restart.sh"), dir_, "stop", mode});
}

absl::Status PostgresTestServer::StartAgain() {
  return Run({SourcePath("scripts/postgres-restart.sh"), dir_, "start"});
}

}  // namespace vernier::testing
