// A hung server loses no finished result (issue 35 item 10). Two servers
// share PostgreSQL and a job runs 6 trials, 2 at a time; the server holding
// the job's lease, which launched the running trials, is SIGSTOPped: it
// still accepts connections but answers nothing. The other takes the lease;
// the agents, who know both addresses, leave the hung one for it when their
// calls time out, and report there. Two stops:
//   - a long one, well past the lease and the agent timeout (as 100 s past
//     10 s and 60 s): no trial is failed for silence;
//   - a short one, under the agent timeout (as 35 s under 60 s): the job
//     goes on while the server is stopped rather than waiting for it.
// Either way the job ends SUCCEEDED with every trial SUCCEEDED, launched
// once, counted once.
#include <signal.h>

#include <chrono>
#include <iostream>
#include <memory>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/job_client.h"
#include "tests/support/postgres_test_database.h"
#include "tests/support/server_process.h"
#include "tests/support/subprocess.h"
#include "tests/support/tuning_job.h"

namespace vernier::testing {
namespace {

constexpr int kHangTrials = 6;
constexpr int kHangSteps = 8;
constexpr char kHangJob[] = "hang";

// SIGSTOPs a process and SIGCONTs it when Resume or the destructor runs,
// so that a failed assertion leaves no stopped server behind.
class Freeze {
 public:
  explicit Freeze(int pid) : pid_(pid) { kill(pid_, SIGSTOP); }
  ~Freeze() { Resume(); }
  void Resume() {
    if (pid_ > 0) kill(pid_, SIGCONT);
    pid_ = 0;
  }

 private:
  int pid_;
};

struct HangScenario {
  std::string name;
  std::string agent_timeout;
  // The long stop lasts `stop`; the short one lasts until the job finished
  // `succeeded_while_stopped` trials, or at most `stop`, which is under the
  // agent timeout.
  std::chrono::seconds stop;
  int succeeded_while_stopped = 0;
};

void PrintTo(const HangScenario& scenario, std::ostream* out) { *out << scenario.name; }

class ServerHangTest : public ::testing::TestWithParam<HangScenario> {
 protected:
  void SetUp() override {
    if (PostgresTestServerUrl().empty()) GTEST_SKIP() << kNoPostgresServer;
    absl::StatusOr<std::unique_ptr<PostgresTestDatabase>> database = PostgresTestDatabase::Create();
    ASSERT_TRUE(database.ok()) << database.status();
    database_ = *std::move(database);
  }

  std::unique_ptr<ServerProcess> MakeServer(int index) {
    return std::make_unique<ServerProcess>(
        absl::StrCat(dir_.path(), "/server-", index), 0,
        std::vector<std::string>{"--db", database_->url(), "--lease-time", "2s", "--agent-timeout",
                                 GetParam().agent_timeout});
  }

  // The PID in the server id ("host:PID:random") holding the job's lease,
  // or 0.
  int LeaseHolderPid() {
    absl::StatusOr<std::string> holder = database_->QueryValue(
        absl::StrCat("SELECT holder FROM job_leases WHERE job_id = '", kHangJob, "'"));
    if (!holder.ok() || *holder == "NULL") return 0;
    std::vector<std::string> parts = absl::StrSplit(*holder, ':');
    return parts.size() >= 3 ? std::stoi(parts[parts.size() - 2]) : 0;
  }

  TempDir dir_;
  std::unique_ptr<PostgresTestDatabase> database_;
};

TEST_P(ServerHangTest, EveryTrialThatSucceededIsCountedOnceAndNoneFails) {
  const HangScenario& scenario = GetParam();
  std::vector<std::unique_ptr<ServerProcess>> servers;
  for (int i = 0; i < 2; ++i) {
    servers.push_back(MakeServer(i));
    servers.back()->Start();
  }
  // Both servers have recorded themselves: agents get both addresses.
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  const std::string runs_dir = dir_.path() + "/runs";
  {
    grpc::ClientContext context;
    v1::SubmitTrainingJobRequest request;
    *request.mutable_job() =
        CountingJob(kHangJob, runs_dir, kHangTrials, /*parallel=*/2, kHangSteps);
    v1::Job submitted;
    const grpc::Status status =
        servers[0]->JobStub()->SubmitTrainingJob(&context, request, &submitted);
    ASSERT_TRUE(status.ok()) << status.error_message();
  }
  // Two trials run: launched, with their runs stored. (A server stopped
  // between launching a trial and storing its run's handle, as it may be
  // under load, is waited for too: see crash_recovery_test.cc.)
  WaitForJob(*servers[0], kHangJob, [](const v1::GetJobResponse& job) {
    int running = 0;
    for (const v1::TrialRun& run : job.trial_runs()) {
      for (const v1::ReplicaStatus& replica : run.replicas()) {
        if (replica.state() == v1::ReplicaStatus::RUNNING) ++running;
      }
    }
    return running >= 2;
  });
  const int holder_pid = LeaseHolderPid();
  int hung = -1;
  for (int i = 0; i < 2; ++i) {
    if (servers[i]->pid() == holder_pid) hung = i;
  }
  ASSERT_GE(hung, 0) << "the lease holder " << holder_pid << " is neither server";
  const ServerProcess& other = *servers[1 - hung];

  Freeze freeze(servers[hung]->pid());
  if (scenario.succeeded_while_stopped > 0) {
    // The job goes on without the stopped server: the two running trials
    // are reported to the other one and more are run.
    const v1::GetJobResponse going_on = WaitForJob(
        other, kHangJob,
        [&](const v1::GetJobResponse& job) {
          return job.trial_counts().succeeded() >= scenario.succeeded_while_stopped;
        },
        scenario.stop);
    EXPECT_GE(going_on.trial_counts().succeeded(), scenario.succeeded_while_stopped)
        << "the job sat idle while its server was stopped";
  } else {
    std::this_thread::sleep_for(scenario.stop);
  }
  freeze.Resume();

  const v1::GetJobResponse ended = WaitForJob(other, kHangJob, Ended, std::chrono::seconds(120));
  EXPECT_EQ(ended.job().state(), v1::Job::SUCCEEDED) << ended.job().error_message();
  EXPECT_EQ(ended.trial_counts().succeeded(), kHangTrials);
  EXPECT_EQ(ended.trial_counts().failed(), 0);
  const std::vector<v1::Trial> trials = ListTrials(other, kHangJob);
  ASSERT_EQ(trials.size(), static_cast<size_t>(kHangTrials));
  for (const v1::Trial& trial : trials) {
    SCOPED_TRACE(absl::StrCat("trial ", trial.id()));
    EXPECT_EQ(trial.state(), v1::Trial::SUCCEEDED) << trial.status_reason();
    EXPECT_EQ(trial.final_measurement().step(), kHangSteps);
    EXPECT_EQ(ReadFile(absl::StrCat(runs_dir, "/", kHangJob, "/", trial.id(), "/launches")),
              "launched\n")
        << "launched more than once";
  }
  for (const v1::TrialRun& run : ended.trial_runs()) EXPECT_EQ(run.attempt(), 0);
  // The server that took the job over failed no trial for silence.
  EXPECT_THAT(other.log(), ::testing::Not(::testing::HasSubstr("sent no heartbeat")))
      << other.log();
  for (auto& server : servers) server->Stop();
  // What the servers did, for a failure that only heavy load brings out.
  if (HasFailure()) {
    for (int i = 0; i < 2; ++i) {
      std::cerr << "server " << i << (i == hung ? " (stopped)" : "") << "'s log:\n"
                << servers[i]->log() << "\n";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Stops, ServerHangTest,
    ::testing::Values(
        // Stopped 30 s: past the lease (2 s) and the agent timeout (10 s).
        HangScenario{"PastTheAgentTimeout", "10s", std::chrono::seconds(30), 0},
        // Stopped under the agent timeout (60 s, the default), at most 40 s:
        // the job finishes its first two trials and one more meanwhile.
        HangScenario{"UnderTheAgentTimeout", "60s", std::chrono::seconds(40), 3}),
    [](const ::testing::TestParamInfo<HangScenario>& info) { return info.param.name; });

}  // namespace
}  // namespace vernier::testing
