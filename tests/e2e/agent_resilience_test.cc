// End to end: what the agent and the service do when the other goes quiet.
// A SIGSTOPped or killed agent fails its trial; a service that is stopped
// while a trainer reports and comes back on the same data dir loses nothing
// and stores nothing twice, and does not hold the outage against the agents.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tests/support/job_client.h"
#include "tests/support/server_process.h"
#include "tests/support/subprocess.h"

namespace vernier::testing {
namespace {

using ::testing::HasSubstr;

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

bool GoneOrZombie(int pid) {
  const std::string stat = ReadText("/proc/" + std::to_string(pid) + "/stat");
  return stat.empty() || stat.find(") Z ") != std::string::npos;
}

bool EndsWithin(int pid, std::chrono::seconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!GoneOrZombie(pid) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return GoneOrZombie(pid);
}

class AgentResilienceTest : public ::testing::Test {
 protected:
  // Submits a job of two trials, one at a time, whose first trial reports
  // once and runs until stopped (writing its pid to DIR/trainer-1.pid) and
  // whose second reports and finishes. Returns the pids of trial 1's agent
  // and trainer once both run.
  std::pair<int, int> SubmitJobWhoseFirstTrialHangs(const ServerProcess& server,
                                                    const std::string& job_id) {
    const std::string config = dir_.path() + "/" + job_id + ".yaml";
    const std::string pid_file = dir_.path() + "/trainer-1.pid";
    WriteFile(config, SmallConfig(2, 1, 2));
    const CommandResult submitted =
        RunCommand(Submit(server, job_id, config, dir_.path() + "/runs",
                          {"/bin/sh", "-c",
                           "if [ \"$CLOUD_ML_TRIAL_ID\" = 1 ]; then echo $$ > " + pid_file +
                               "; echo step=1 accuracy=0.1; while :; do sleep 0.1; done; fi; echo "
                               "step=1 accuracy=0.7",
                           "trainer"}));
    EXPECT_EQ(submitted.exit_code, 0) << submitted.err;
    const v1::GetJobResponse running =
        WaitForJob(server, job_id, [&](const v1::GetJobResponse& job) {
          return job.trial_runs_size() == 1 && job.trial_runs(0).replicas(0).pid() > 0 &&
                 !ReadText(pid_file).empty();
        });
    if (running.trial_runs_size() != 1) return {-1, -1};
    return {static_cast<int>(running.trial_runs(0).replicas(0).pid()),
            std::stoi(ReadText(pid_file))};
  }

  // Waits for the job to end; it succeeds on its second trial, and returns
  // why the first failed.
  std::string FirstTrialFailure(const ServerProcess& server, const std::string& job_id) {
    const v1::GetJobResponse job = WaitForJob(server, job_id, Ended);
    EXPECT_EQ(job.job().state(), v1::Job::SUCCEEDED) << job.DebugString() << server.log();
    const std::vector<v1::Trial> trials = ListTrials(server, job_id);
    if (trials.size() != 2u) {
      ADD_FAILURE() << trials.size() << " trials";
      return "";
    }
    EXPECT_EQ(trials[0].state(), v1::Trial::FAILED);
    EXPECT_EQ(trials[1].state(), v1::Trial::SUCCEEDED);
    return trials[0].status_reason();
  }

  TempDir dir_;
};

TEST_F(AgentResilienceTest, AStoppedAgentFailsItsTrialAfterTheAgentTimeoutAndTheJobGoesOn) {
  ServerProcess server(dir_.path() + "/data", 0, {"--agent-timeout", "2s"});
  server.Start();
  const auto [agent, trainer] = SubmitJobWhoseFirstTrialHangs(server, "stopped_agent");
  ASSERT_GT(agent, 0);
  // Alive for the backend, silent for the service: only heartbeats tell.
  ASSERT_EQ(kill(agent, SIGSTOP), 0);

  const std::string reason = FirstTrialFailure(server, "stopped_agent");
  EXPECT_THAT(reason, HasSubstr("the agent of master-0 sent no heartbeat for"));
  EXPECT_THAT(reason, HasSubstr("(agent timeout 2s)"));
  // Its processes were ended, the stopped agent included.
  EXPECT_TRUE(EndsWithin(agent, std::chrono::seconds(20))) << "agent " << agent;
  EXPECT_TRUE(EndsWithin(trainer, std::chrono::seconds(20))) << "trainer " << trainer;
}

TEST_F(AgentResilienceTest, AKilledAgentFailsItsTrialWithTheReason) {
  ServerProcess server(dir_.path() + "/data", 0, {"--agent-timeout", "2s"});
  server.Start();
  const auto [agent, trainer] = SubmitJobWhoseFirstTrialHangs(server, "killed_agent");
  ASSERT_GT(agent, 0);
  ASSERT_EQ(kill(agent, SIGKILL), 0);

  // The local backend sees the agent's death and names it (its process check
  // stays); where a backend cannot, the silence fails the trial as in the
  // SIGSTOP case.
  EXPECT_THAT(FirstTrialFailure(server, "killed_agent"),
              HasSubstr("master-0 was killed by signal 9 (Killed) without its agent reporting the "
                        "outcome"));
  EXPECT_TRUE(EndsWithin(trainer, std::chrono::seconds(10))) << "trainer " << trainer;
}

TEST_F(AgentResilienceTest, AServiceStoppedWhileTheTrainerReportsLosesNothing) {
  // Restarted below on the same port.
  ServerProcess server(dir_.path() + "/data", RestartablePort(), {"--agent-timeout", "3s"});
  server.Start();
  const std::string config = dir_.path() + "/hp.yaml";
  // The trainer's own format, read through metricRegex.
  WriteFile(
      config,
      SmallConfig(1, 1, 0, "    metricRegex: 'iter (?P<step>\\d+): acc=(?P<accuracy>[0-9.]+)'\n"));
  const std::string job_dir = dir_.path() + "/runs";
  ASSERT_EQ(RunCommand(Submit(server, "outage", config, job_dir,
                              {"/bin/sh", "-c",
                               "i=1; while [ $i -le 30 ]; do echo \"iter $i: acc=0.$i\"; "
                               "i=$((i+1)); sleep 0.2; done",
                               "trainer"}))
                .exit_code,
            0);
  WaitForJob(server, "outage", [](const v1::GetJobResponse& job) {
    return job.trial_counts().active() == 1 && job.trial_runs_size() == 1 &&
           job.trial_runs(0).replicas(0).pid() > 0;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  const int port = server.port();
  server.Stop();
  // Longer than the agent timeout: the restarted service must not count the
  // outage as the agent's silence. Long enough too for a reconnect backoff
  // that grew past the heartbeat interval (its 5 s cap) to leave the agent
  // silent for longer than the timeout after the restart: the agent's
  // backoff stays within one interval (750 ms here).
  std::this_thread::sleep_for(std::chrono::milliseconds(7000));
  EXPECT_TRUE(std::filesystem::exists(job_dir + "/1/.vernier/master-0/measurements.log"));
  ServerProcess restarted(dir_.path() + "/data", port, {"--agent-timeout", "3s"});
  restarted.Start();

  const v1::GetJobResponse job = WaitForJob(restarted, "outage", Ended);
  ASSERT_EQ(job.job().state(), v1::Job::SUCCEEDED) << job.DebugString() << restarted.log();
  const std::vector<v1::Trial> trials = ListTrials(restarted, "outage");
  ASSERT_EQ(trials.size(), 1u);
  ASSERT_EQ(trials[0].measurements_size(), 30) << trials[0].DebugString();
  for (int i = 0; i < 30; ++i) {
    const v1::Measurement& measurement = trials[0].measurements(i);
    EXPECT_EQ(measurement.step(), i + 1);
    EXPECT_EQ(measurement.sequence_number(), i + 1);
    ASSERT_EQ(measurement.metrics_size(), 1);
    EXPECT_EQ(measurement.metrics(0).metric_id(), "accuracy");
  }
  EXPECT_EQ(trials[0].final_measurement().step(), 30);
  EXPECT_THAT(restarted.log(), ::testing::Not(HasSubstr("sent no heartbeat")));
}

}  // namespace
}  // namespace vernier::testing
