// A database restart is not a job failure (issue 38): PostgreSQL restarted
// (fast and immediate shutdown), or stopped for 30 s, under a running job,
// with one server and with two sharing the store; and the server SIGKILLed
// while PostgreSQL is down, then both back. Each job ends SUCCEEDED with
// every trial SUCCEEDED, launched once (the trainer counts its launches in
// its trial dir), and every measurement its trainer printed stored (the
// agents keep them until the server acknowledges them). While the store is
// away clients get UNAVAILABLE, never INTERNAL; `GetJob` says since when the
// job waits for the store; the server logs the outage at its start and end.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/counting_job.h"
#include "tests/support/job_client.h"
#include "tests/support/postgres_test_database.h"
#include "tests/support/postgres_test_server.h"
#include "tests/support/server_process.h"
#include "tests/support/study_client.h"
#include "tests/support/subprocess.h"

namespace vernier::testing {
namespace {

constexpr int kOutageTrials = 6;
constexpr int kOutageSteps = 8;

// Six trials, two at a time, each counting its launch in its trial dir and
// printing 8 steps over about 4 s.
v1::Job FaultJob(const std::string& job_id, const std::string& runs_dir) {
  return CountingJob(job_id, runs_dir, kOutageTrials, /*parallel=*/2, kOutageSteps);
}

// Waits for the job to end; it must have SUCCEEDED with every trial
// SUCCEEDED, launched once, and every step its trainer printed stored.
void ExpectSucceededEveryTrialOnce(const ServerProcess& server, const std::string& job_id,
                                   const std::string& runs_dir) {
  ExpectSucceededEveryTrialOnce(server, job_id, runs_dir, kOutageTrials, kOutageSteps);
}

// Submits the counting job and waits until its first two trials run.
void SubmitAndWaitForTwoTrials(const ServerProcess& server, const std::string& job_id,
                               const std::string& runs_dir) {
  SubmitAndWaitForActiveTrials(server, FaultJob(job_id, runs_dir), 2);
}

// Polls the job while the store is away: every answer is OK or
// UNAVAILABLE (never INTERNAL); true when one said the job waits for the
// store.
bool PollWhileStoreAway(const ServerProcess& server, const std::string& job_id,
                        std::chrono::seconds how_long) {
  bool said_waiting = false;
  const auto until = std::chrono::steady_clock::now() + how_long;
  do {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
    v1::GetJobRequest request;
    request.set_job_id(job_id);
    v1::GetJobResponse response;
    const grpc::Status status = server.JobStub()->GetJob(&context, request, &response);
    if (status.ok()) {
      said_waiting = said_waiting || response.job().has_waiting_for_store_since();
    } else {
      EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE) << status.error_message();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  } while (std::chrono::steady_clock::now() < until);
  return said_waiting;
}

struct OutageScenario {
  std::string name;
  int servers = 1;
  // How PostgreSQL shuts down: "fast" or "immediate".
  std::string shutdown = "fast";
  // How long it stays down.
  std::chrono::seconds down{0};
  // The (first) server is SIGKILLed while PostgreSQL is down, and started
  // again after it.
  bool kill_server = false;
};

class StoreFaultTest : public ::testing::TestWithParam<OutageScenario> {
 protected:
  void SetUp() override {
    // The suite's PostgreSQL marks a machine that has one; this test starts
    // its own, which it stops and starts.
    if (PostgresTestServerUrl().empty()) GTEST_SKIP() << kNoPostgresServer;
    absl::StatusOr<std::unique_ptr<PostgresTestServer>> postgres = PostgresTestServer::Start();
    ASSERT_TRUE(postgres.ok()) << postgres.status();
    postgres_ = *std::move(postgres);
  }

  std::unique_ptr<ServerProcess> MakeServer(int index) {
    return std::make_unique<ServerProcess>(
        absl::StrCat(dir_.path(), "/server-", index), 0,
        std::vector<std::string>{"--db", postgres_->url(), "--lease-time", "2s"});
  }

  TempDir dir_;
  std::unique_ptr<PostgresTestServer> postgres_;
};

TEST_P(StoreFaultTest, TheJobSucceedsEveryTrialRunOnceNoMeasurementLost) {
  const OutageScenario& scenario = GetParam();
  std::vector<std::unique_ptr<ServerProcess>> servers;
  for (int i = 0; i < scenario.servers; ++i) {
    servers.push_back(MakeServer(i));
    servers.back()->Start();
  }
  const std::string job_id = "pgf";
  SubmitAndWaitForTwoTrials(*servers[0], job_id, dir_.path() + "/runs");
  // A job that never ran two trials failed for another reason: no fault
  // goes into it, and the waits below would only add minutes.
  ASSERT_FALSE(HasFailure()) << "job " << job_id << " never ran two trials; no fault injected";
  std::this_thread::sleep_for(std::chrono::seconds(2));

  ASSERT_TRUE(postgres_->Stop(scenario.shutdown).ok());
  if (scenario.kill_server) {
    std::this_thread::sleep_for(std::chrono::seconds(2));
    servers[0]->Kill();
  } else {
    // The server's next pass (every 200 ms) finds the store away. With the
    // whole database down a call is refused (UNAVAILABLE) when its token
    // cannot be checked; GetJob says the job waits only for callers that
    // pass (see the SQLite test).
    std::this_thread::sleep_for(std::chrono::seconds(1));
    PollWhileStoreAway(*servers[0], job_id, scenario.down - std::chrono::seconds(1));
  }
  if (scenario.kill_server) std::this_thread::sleep_for(scenario.down);
  ASSERT_TRUE(postgres_->StartAgain().ok());
  if (scenario.kill_server) servers[0]->Start();

  ExpectSucceededEveryTrialOnce(*servers[0], job_id, dir_.path() + "/runs");

  for (const auto& server : servers) {
    const std::string log = server->log();
    EXPECT_THAT(log, ::testing::Not(::testing::HasSubstr("job=pgf FAILED"))) << log;
    // A server killed during the outage logged its start only; the one
    // started again after it saw none.
    if (scenario.kill_server && server == servers[0]) {
      EXPECT_EQ(CountOccurrences(log, "is unavailable since"), 1u) << log;
      continue;
    }
    // The outage is logged at its start and at its end, not per call (a
    // restart may show as two outages: down, then starting up).
    const size_t began = CountOccurrences(log, "is unavailable since");
    EXPECT_GE(began, 1u) << log;
    EXPECT_LE(began, 2u) << log;
    EXPECT_GE(CountOccurrences(log, "is back after"), 1u) << log;
  }
  for (auto& server : servers) server->Stop();
}

INSTANTIATE_TEST_SUITE_P(
    Faults, StoreFaultTest,
    ::testing::Values(
        OutageScenario{"FastRestart", 1, "fast", std::chrono::seconds(6), false},
        OutageScenario{"ImmediateRestart", 1, "immediate", std::chrono::seconds(6), false},
        OutageScenario{"Outage30s", 1, "fast", std::chrono::seconds(30), false},
        OutageScenario{"ServerKilledWhileDown", 1, "fast", std::chrono::seconds(6), true},
        OutageScenario{"FastRestartTwoServers", 2, "fast", std::chrono::seconds(6), false},
        OutageScenario{"Outage30sTwoServers", 2, "fast", std::chrono::seconds(30), false}),
    [](const ::testing::TestParamInfo<OutageScenario>& info) { return info.param.name; });

// The SQLite database's disk full for a while (a 16 MiB tmpfs, filled up,
// then freed): the job waits for space, then goes on.
TEST(SqliteDiskFullTest, TheJobWaitsForSpaceAndSucceeds) {
  if (geteuid() != 0) GTEST_SKIP() << "mounting a small tmpfs takes root";
  TempDir dir;
  const std::string disk = dir.path() + "/small";
  ASSERT_EQ(RunCommand({"mkdir", "-p", disk}).exit_code, 0);
  const CommandResult mounted =
      RunCommand({"mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", disk});
  if (mounted.exit_code != 0) GTEST_SKIP() << "cannot mount a tmpfs: " << mounted.err;
  struct Unmount {
    std::string path;
    ~Unmount() { RunCommand({"umount", "-l", path}); }
  } unmount{disk};

  ServerProcess server(dir.path() + "/server", 0,
                       {"--db", absl::StrCat("sqlite:", disk, "/vernier.db")});
  server.Start();
  const std::string job_id = "full";
  SubmitAndWaitForTwoTrials(server, job_id, dir.path() + "/runs");
  ASSERT_FALSE(HasFailure()) << "job " << job_id << " never ran two trials; no disk filled";
  std::this_thread::sleep_for(std::chrono::seconds(2));
  // dd stops, failing, once the disk is full.
  RunCommand({"dd", "if=/dev/zero", "of=" + disk + "/filler", "bs=1M", "count=64"});
  // The agents' next measurements (every 0.5 s) find the disk full.
  std::this_thread::sleep_for(std::chrono::seconds(2));
  EXPECT_TRUE(PollWhileStoreAway(server, job_id, std::chrono::seconds(10)))
      << "GetJob never said the job waits for the store" << server.log();
  ASSERT_EQ(RunCommand({"rm", disk + "/filler"}).exit_code, 0);

  ExpectSucceededEveryTrialOnce(server, job_id, dir.path() + "/runs");
  const std::string log = server.log();
  EXPECT_GE(CountOccurrences(log, "is unavailable since"), 1u) << log;
  EXPECT_GE(CountOccurrences(log, "is back after"), 1u) << log;
  server.Stop();
}

}  // namespace
}  // namespace vernier::testing
