#ifndef VERNIER_TESTS_SUPPORT_POSTGRES_TEST_SERVER_H_
#define VERNIER_TESTS_SUPPORT_POSTGRES_TEST_SERVER_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace vernier::testing {

// A PostgreSQL server of a test's own (scripts/postgres-up.sh), which the
// test may stop and start again with the same data and port
// (scripts/postgres-restart.sh): fault injection. Removed with its data
// (scripts/postgres-down.sh) when the object goes.
class PostgresTestServer {
 public:
  // UNAVAILABLE with the script's output when the server does not start.
  static absl::StatusOr<std::unique_ptr<PostgresTestServer>> Start();
  ~PostgresTestServer();
  PostgresTestServer(const PostgresTestServer&) = delete;
  PostgresTestServer& operator=(const PostgresTestServer&) = delete;

  // postgresql://vernier@127.0.0.1:PORT/postgres
  const std::string& url() const { return url_; }

  // Shuts it down: "fast" (sessions end with SQLSTATE 57P01) or "immediate"
  // (as in a crash; the next start recovers from the WAL).
  absl::Status Stop(const std::string& mode);
  // Starts it again, at the same port, and waits until it accepts connections.
  absl::Status StartAgain();

 private:
  explicit PostgresTestServer(std::string dir, std::string url);

  std::string dir_;
  std::string url_;
};

}  // namespace vernier::testing

#endif  // VERNIER_TESTS_SUPPORT_POSTGRES_TEST_SERVER_H_
