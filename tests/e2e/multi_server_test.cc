// Several `vernier serve` processes on one PostgreSQL database share the
// work of running jobs (issue 18, defect 1): each job is driven by the one
// server holding its lease, and when that server is killed with SIGKILL
// mid-job another takes its jobs over within the lease time. Every job then
// finishes with exactly its trials, each launched once (the trainer counts
// its launches in its trial dir), none failed (no trial is killed for a
// heartbeat another server received, none failed by a server that did not
// launch it).
#include <signal.h>

#include <chrono>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
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
#include "tests/support/study_client.h"
#include "tests/support/subprocess.h"
#include "tests/support/tuning_job.h"

namespace vernier::testing {
namespace {

constexpr int kJobs = 4;
constexpr int kSharedTrials = 4;
constexpr int kSharedSteps = 8;

// Counts its launch in the trial dir (its working dir), then reports 8
// steps over about 2 s.
v1::Job LaunchCountingJob(const std::string& job_id, const std::string& runs_dir) {
  v1::Job job = TuningJob(job_id, runs_dir, kSharedTrials, /*parallel=*/2);
  job.clear_command();
  job.add_command("/bin/sh");
  job.add_command("-c");
  job.add_command(
      absl::StrFormat("echo launched >> launches; i=0; while [ $i -lt %d ]; do i=$((i+1)); "
                      "echo step=$i accuracy=0.$i; sleep 0.25; done",
                      kSharedSteps));
  job.add_command("trainer");
  job.mutable_training_input()->set_scale_tier("BASIC");
  return job;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class MultiServerTest : public ::testing::TestWithParam<int> {
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
                                 "20s"});
  }

  // The PID in the server id ("host:PID:random") holding a lease of one of
  // the jobs, or 0.
  int DrivingPid() {
    absl::StatusOr<std::string> holder =
        database_->QueryValue("SELECT holder FROM job_leases ORDER BY job_id LIMIT 1");
    if (!holder.ok() || *holder == "NULL") return 0;
    std::vector<std::string> parts = absl::StrSplit(*holder, ':');
    return parts.size() >= 3 ? std::stoi(parts[parts.size() - 2]) : 0;
  }

  TempDir dir_;
  std::unique_ptr<PostgresTestDatabase> database_;
};

TEST_P(MultiServerTest, JobsSurviveTheirServerKilledMidJobEachTrialLaunchedOnce) {
  const int server_count = GetParam();
  std::vector<std::unique_ptr<ServerProcess>> servers;
  for (int i = 0; i < server_count; ++i) {
    servers.push_back(MakeServer(i));
    servers.back()->Start();
  }
  // Every server has recorded itself (agents learn of all of them).
  std::this_thread::sleep_for(std::chrono::milliseconds(700));

  for (int j = 0; j < kJobs; ++j) {
    const std::string job_id = absl::StrCat("shared_", j);
    grpc::ClientContext context;
    v1::SubmitTrainingJobRequest request;
    *request.mutable_job() = LaunchCountingJob(job_id, dir_.path() + "/runs");
    v1::Job submitted;
    // Submitted to different servers: any of them may take any job.
    grpc::Status status =
        servers[j % server_count]->JobStub()->SubmitTrainingJob(&context, request, &submitted);
    ASSERT_TRUE(status.ok()) << status.error_message();
  }

  // Mid-job, the server driving the first job dies.
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  const int victim_pid = DrivingPid();
  ASSERT_NE(victim_pid, 0) << "no server took a job";
  int victim = -1;
  for (int i = 0; i < server_count; ++i) {
    if (servers[i]->pid() == victim_pid) victim = i;
  }
  ASSERT_GE(victim, 0) << "the lease holder " << victim_pid << " is none of the servers";
  servers[victim]->Kill();
  const ServerProcess& survivor = *servers[(victim + 1) % server_count];

  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(150);
  std::map<std::string, v1::GetJobResponse> jobs;
  for (int j = 0; j < kJobs; ++j) {
    const std::string job_id = absl::StrCat("shared_", j);
    for (;;) {
      grpc::ClientContext context;
      context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
      v1::GetJobRequest request;
      request.set_job_id(job_id);
      v1::GetJobResponse response;
      grpc::Status status = survivor.JobStub()->GetJob(&context, request, &response);
      ASSERT_TRUE(status.ok()) << status.error_message() << survivor.log();
      if (Ended(response)) {
        jobs[job_id] = response;
        break;
      }
      ASSERT_LT(std::chrono::steady_clock::now(), deadline)
          << job_id << " never ended: " << response.DebugString() << survivor.log();
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  }

  for (const auto& [job_id, job] : jobs) {
    SCOPED_TRACE(job_id);
    EXPECT_EQ(job.job().state(), v1::Job::SUCCEEDED) << job.DebugString();
    std::vector<v1::Trial> trials;
    ASSERT_TRUE(StudyClient(survivor.address()).ListTrials(job_id, true, &trials).ok());
    ASSERT_EQ(trials.size(), static_cast<size_t>(kSharedTrials));
    for (const v1::Trial& trial : trials) {
      SCOPED_TRACE(trial.DebugString());
      EXPECT_EQ(trial.state(), v1::Trial::SUCCEEDED);
      EXPECT_EQ(trial.final_measurement().step(), kSharedSteps);
      const std::string launches =
          ReadFile(absl::StrCat(dir_.path(), "/runs/", job_id, "/", trial.id(), "/launches"));
      EXPECT_EQ(launches, "launched\n") << "trial " << trial.id() << " launched more than once";
    }
    for (const v1::TrialRun& run : job.trial_runs()) EXPECT_EQ(run.attempt(), 0);
  }
  for (int i = 0; i < server_count; ++i) {
    if (i != victim) servers[i]->Stop();
  }
}

INSTANTIATE_TEST_SUITE_P(Servers, MultiServerTest, ::testing::Values(2, 3),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return absl::StrCat(info.param, "Servers");
                         });

}  // namespace
}  // namespace vernier::testing
