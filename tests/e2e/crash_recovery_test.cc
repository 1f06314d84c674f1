// `vernier serve` killed with SIGKILL at random moments and restarted on the
// same database, on every store. While clients drive a study: every
// acknowledged measurement and completion is there exactly once, nothing
// else is, and the trials that were running are taken up again by their
// clients. While a tuning job runs: the agents of running trials reconnect
// and deliver every measurement once, a trial whose agent died while no
// server was up is failed after the lost-replica timeout, and the job
// finishes. Set VERNIER_CRASH_SEED to replay a failing run's kill times.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>

#include <atomic>
#include <cstdlib>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tests/support/job_client.h"
#include "tests/support/server_process.h"
#include "tests/support/store_test.h"
#include "tests/support/study_client.h"
#include "tests/support/subprocess.h"
#include "tests/support/test_seed.h"
#include "tests/support/tuning_job.h"
#include "tuner/storage/storage_factory.h"

namespace vernier::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr char kCrashingStudy[] = "crashing";
constexpr char kCrashMetric[] = "score";
constexpr int kClients = 4;
constexpr int kKills = 20;

// The values a client reports, so that any stored one can be checked.
double MeasuredValue(int64_t trial_id, int64_t sequence_number) {
  return static_cast<double>(trial_id) + sequence_number / 100.0;
}
double FinalValue(int64_t trial_id) { return trial_id * 10.0; }

bool Transient(const grpc::Status& status) {
  return status.error_code() == grpc::StatusCode::UNAVAILABLE ||
         status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED;
}

using MeasurementKey = std::pair<int64_t, int64_t>;  // trial id, sequence number

// What the server acknowledged, and what was ever sent.
class Ledger {
 public:
  void Sent(int64_t trial_id, int64_t sequence_number) {
    std::lock_guard lock(mutex_);
    sent_.insert({trial_id, sequence_number});
  }
  void Acknowledged(int64_t trial_id, int64_t sequence_number) {
    std::lock_guard lock(mutex_);
    acknowledged_.insert({trial_id, sequence_number});
  }
  void CompletionAcknowledged(int64_t trial_id) {
    std::lock_guard lock(mutex_);
    completed_.insert(trial_id);
  }
  void Violation(std::string what) {
    std::lock_guard lock(mutex_);
    // A broken server makes agents repeat themselves; the first few tell.
    if (violations_.size() < 20) violations_.push_back(std::move(what));
  }

  struct Snapshot {
    std::set<MeasurementKey> sent, acknowledged;
    std::set<int64_t> completed;
    std::vector<std::string> violations;
  };
  Snapshot Take() const {
    std::lock_guard lock(mutex_);
    return {sent_, acknowledged_, completed_, violations_};
  }

 private:
  mutable std::mutex mutex_;
  std::set<MeasurementKey> sent_, acknowledged_;
  std::set<int64_t> completed_;
  std::vector<std::string> violations_;
};

// One agent: takes a trial, reports 2 to 6 measurements with sequence
// numbers, completes it; every call is retried until acknowledged, as
// vernier-agent does. After a failed report it sometimes forgets its trial
// (its process "restarted") and must get the same trial back by asking
// with its client id.
class Agent {
 public:
  Agent(std::string address, std::string client_id, uint64_t seed, Ledger& ledger,
        const std::atomic<bool>& stop)
      : client_(std::move(address), std::chrono::seconds(5)),
        client_id_(std::move(client_id)),
        rng_(seed),
        ledger_(ledger),
        stop_(stop) {}

  void Run() {
    while (!stop_) {
      std::optional<v1::Trial> trial = TakeTrial(std::nullopt);
      if (!trial.has_value()) return;
      RunTrial(*trial);
    }
  }

  int forgotten() const { return forgotten_; }

 private:
  // Asks until it gets a trial; `expected` is the one it must get back.
  // Gives up only on a definite "no trial" once told to stop: after a
  // failed call the server may have handed it a trial that only asking
  // again reveals.
  std::optional<v1::Trial> TakeTrial(std::optional<int64_t> expected) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (std::chrono::steady_clock::now() < deadline) {
      v1::SuggestTrialsResponse response;
      grpc::Status status = client_.Suggest(kCrashingStudy, 1, client_id_, &response);
      if (status.ok() && response.trials_size() == 1) {
        const v1::Trial& trial = response.trials(0);
        if (expected.has_value() && trial.id() != *expected) {
          ledger_.Violation(absl::StrFormat("%s asked again for its trial %d and got trial %d",
                                            client_id_, *expected, trial.id()));
        }
        return trial;
      }
      if (status.ok()) {
        if (expected.has_value()) {
          ledger_.Violation(absl::StrFormat("%s asked again for its trial %d and got none: %s",
                                            client_id_, *expected, response.reason()));
        }
        if (stop_) return std::nullopt;
      } else if (!Transient(status)) {
        ledger_.Violation(client_id_ + ": SuggestTrials: " + status.error_message());
      }
      Pause();
    }
    ledger_.Violation(client_id_ + " got no trial for 60 s");
    return std::nullopt;
  }

  void RunTrial(v1::Trial trial) {
    const int64_t reports = 2 + rng_() % 5;
    // A trial taken back holds what was stored before, acknowledged or not.
    for (int64_t sequence = trial.measurement_count() + 1; sequence <= reports;) {
      const v1::Measurement measurement =
          MakeMeasurement(sequence, sequence, kCrashMetric, MeasuredValue(trial.id(), sequence));
      ledger_.Sent(trial.id(), sequence);
      grpc::Status status = client_.AddMeasurement(kCrashingStudy, trial.id(), measurement);
      if (status.ok()) {
        ledger_.Acknowledged(trial.id(), sequence);
        ++sequence;
        continue;
      }
      if (!Transient(status)) {
        ledger_.Violation(absl::StrFormat("%s: AddMeasurement to trial %d: %s", client_id_,
                                          trial.id(), status.error_message()));
      }
      Pause();
      if (rng_() % 4 == 0) {
        ++forgotten_;
        std::optional<v1::Trial> again = TakeTrial(trial.id());
        if (!again.has_value()) return;
        trial = *std::move(again);
        sequence = trial.measurement_count() + 1;
      }
    }
    const v1::Measurement final = MakeMeasurement(reports, 0, kCrashMetric, FinalValue(trial.id()));
    while (true) {
      grpc::Status status = client_.Complete(kCrashingStudy, trial.id(), &final);
      if (status.ok()) break;
      if (!Transient(status)) {
        ledger_.Violation(absl::StrFormat("%s: CompleteTrial %d: %s", client_id_, trial.id(),
                                          status.error_message()));
        return;
      }
      Pause();
    }
    ledger_.CompletionAcknowledged(trial.id());
  }

  void Pause() { std::this_thread::sleep_for(std::chrono::milliseconds(5 + rng_() % 20)); }

  StudyClient client_;
  std::string client_id_;
  std::mt19937_64 rng_;
  Ledger& ledger_;
  const std::atomic<bool>& stop_;
  int forgotten_ = 0;
};

// SQLite's own consistency check of every page and index.
std::string SqliteIntegrity(const std::string& path) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    std::string error = sqlite3_errmsg(db);
    sqlite3_close(db);
    return "cannot open: " + error;
  }
  sqlite3_busy_timeout(db, 5000);
  std::string result;
  sqlite3_stmt* statement = nullptr;
  if (sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &statement, nullptr) == SQLITE_OK) {
    while (sqlite3_step(statement) == SQLITE_ROW) {
      if (!result.empty()) result += "; ";
      result += reinterpret_cast<const char*>(sqlite3_column_text(statement, 0));
    }
  } else {
    result = std::string("cannot check: ") + sqlite3_errmsg(db);
  }
  sqlite3_finalize(statement);
  sqlite3_close(db);
  return result;
}

// amcheck's check of every B-tree index of the store against its table.
absl::Status PostgresIndexesCheck(const PostgresTestDatabase& database) {
  if (absl::Status status = database.Execute("CREATE EXTENSION IF NOT EXISTS amcheck");
      !status.ok()) {
    return status;
  }
  return database.Execute(
      "SELECT bt_index_check(c.oid, true) FROM pg_index i "
      "JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam "
      "WHERE a.amname = 'btree' AND c.relnamespace = 'public'::regnamespace");
}

// Everything acknowledged in `before` is stored once, with the values sent;
// nothing that was never sent is stored; ids, counts and sequence numbers
// are consistent. `finished`: no trial may still be running.
void CheckStored(const std::vector<v1::Trial>& trials, const Ledger::Snapshot& before,
                 bool finished) {
  std::set<MeasurementKey> stored;
  std::set<int64_t> succeeded;
  int64_t expected_id = 1;
  for (const v1::Trial& trial : trials) {
    SCOPED_TRACE(trial.DebugString());
    EXPECT_EQ(trial.id(), expected_id++) << "trial ids have a gap or a repeat";
    EXPECT_EQ(trial.measurement_count(), trial.measurements_size());
    for (int i = 0; i < trial.measurements_size(); ++i) {
      const v1::Measurement& measurement = trial.measurements(i);
      // Sent in order, each retried until acknowledged: 1, 2, 3, ...
      EXPECT_EQ(measurement.sequence_number(), i + 1);
      EXPECT_EQ(measurement.step(), measurement.sequence_number());
      ASSERT_EQ(measurement.metrics_size(), 1);
      EXPECT_EQ(measurement.metrics(0).value(),
                MeasuredValue(trial.id(), measurement.sequence_number()));
      const MeasurementKey key{trial.id(), measurement.sequence_number()};
      EXPECT_TRUE(stored.insert(key).second) << "stored twice";
      if (finished) {
        EXPECT_TRUE(before.sent.contains(key)) << "stored but never sent";
      }
    }
    if (trial.measurements_size() > 0) {
      EXPECT_EQ(trial.latest_measurement().SerializeAsString(),
                trial.measurements(trial.measurements_size() - 1).SerializeAsString());
    }
    if (trial.state() == v1::Trial::SUCCEEDED) {
      succeeded.insert(trial.id());
      EXPECT_EQ(trial.final_measurement().metrics(0).value(), FinalValue(trial.id()));
    } else {
      EXPECT_EQ(trial.state(), finished ? v1::Trial::SUCCEEDED : v1::Trial::ACTIVE);
    }
  }
  for (const MeasurementKey& key : before.acknowledged) {
    EXPECT_TRUE(stored.contains(key))
        << "acknowledged measurement " << key.second << " of trial " << key.first << " is lost";
  }
  for (int64_t trial_id : before.completed) {
    EXPECT_TRUE(succeeded.contains(trial_id))
        << "acknowledged completion of trial " << trial_id << " is lost";
  }
}

constexpr char kKilledJob[] = "killed_often";
constexpr int kKilledSteps = 6;
constexpr int kKilledTrials = 6;
constexpr int kJobKills = 4;

v1::Job SlowJob(const std::string& job_dir) {
  v1::Job job;
  job.set_job_id(kKilledJob);
  job.set_job_dir(job_dir);
  // Reports steps 1..6 over about 1.5 s, so trials are mid-run at a kill.
  job.add_command("/bin/sh");
  job.add_command("-c");
  job.add_command(absl::StrFormat(
      "i=0; while [ $i -lt %d ]; do i=$((i+1)); echo step=$i accuracy=0.$i; sleep 0.25; done",
      kKilledSteps));
  job.add_command("trainer");
  v1::TrainingInput& input = *job.mutable_training_input();
  input.set_scale_tier("BASIC");
  v1::HyperparameterSpec& hyperparameters = *input.mutable_hyperparameters();
  hyperparameters.set_goal(v1::MetricSpec::MAXIMIZE);
  hyperparameters.set_hyperparameter_metric_tag("accuracy");
  hyperparameters.set_max_trials(kKilledTrials);
  hyperparameters.set_max_parallel_trials(2);
  hyperparameters.set_max_failed_trials(3);
  hyperparameters.set_algorithm(v1::RANDOM_SEARCH);
  v1::ParameterSpec& rate = *hyperparameters.add_params();
  rate.set_parameter_name("learning_rate");
  rate.set_type(v1::ParameterSpec::DOUBLE);
  rate.set_min_value(0.001);
  rate.set_max_value(0.5);
  rate.set_scale_type(v1::ParameterSpec::UNIT_LOG_SCALE);
  return job;
}

grpc::Status GetJob(const ServerProcess& server, v1::GetJobResponse* job) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  v1::GetJobRequest request;
  request.set_job_id(kKilledJob);
  return server.JobStub()->GetJob(&context, request, job);
}

// The master agent of a trial that is running now, or 0.
int64_t RunningAgent(const v1::GetJobResponse& job, int64_t* trial_id) {
  for (const v1::TrialRun& run : job.trial_runs()) {
    for (const v1::ReplicaStatus& replica : run.replicas()) {
      if (replica.state() == v1::ReplicaStatus::RUNNING && replica.pid() > 0) {
        *trial_id = run.trial_id();
        return replica.pid();
      }
    }
  }
  return 0;
}

// Kill times and pauses come from one seed, printed when a test fails.
class CrashRecoveryTest : public StoreTest {
 protected:
  void SetUp() override {
    StoreTest::SetUp();
    seed_ = SeedFrom("VERNIER_CRASH_SEED");
    rng_.seed(seed_);
    RecordProperty("seed", std::to_string(seed_));
  }
  void TearDown() override {
    if (HasFailure()) {
      std::cout << "seed " << seed_ << ": rerun with VERNIER_CRASH_SEED=" << seed_ << "\n";
    }
  }

  // Waits a random time up to `most` milliseconds past `least`.
  void Pause(int least, int most) {
    std::this_thread::sleep_for(std::chrono::milliseconds(least + rng_() % (most - least)));
  }

  uint64_t seed_ = 0;
  std::mt19937_64 rng_;
};

TEST_P(CrashRecoveryTest, AcknowledgedResultsSurviveRepeatedKills) {
  // Restarted after each kill on the same port.
  std::unique_ptr<ServerProcess> server = MakeServer("start", RestartablePort());
  server->Start();
  const int port = server->port();
  ASSERT_TRUE(StudyClient(server->address())
                  .CreateStudy(SimpleStudy(kCrashingStudy, kCrashMetric, 0, kClients))
                  .ok());

  Ledger ledger;
  std::atomic<bool> stop{false};
  std::vector<std::unique_ptr<Agent>> agents;
  std::vector<std::thread> threads;
  for (int i = 0; i < kClients; ++i) {
    agents.push_back(std::make_unique<Agent>(server->address(), absl::StrFormat("agent-%d", i),
                                             rng_(), ledger, stop));
    threads.emplace_back([agent = agents.back().get()] { agent->Run(); });
  }

  for (int kill = 1; kill <= kKills && !HasFailure(); ++kill) {
    SCOPED_TRACE(absl::StrFormat("after kill %d", kill));
    Pause(100, 800);
    server->Kill();
    Pause(0, 150);
    server = MakeServer(absl::StrFormat("restart-%d", kill), port);
    server->Start();

    // What was acknowledged before reading must all be there.
    const Ledger::Snapshot acknowledged = ledger.Take();
    std::vector<v1::Trial> trials;
    grpc::Status listed = StudyClient(server->address()).ListTrials(kCrashingStudy, true, &trials);
    if (!listed.ok()) {
      // Not an ASSERT: the agents' threads are stopped and joined below.
      ADD_FAILURE() << "ListTrials: " << listed.error_code() << " " << listed.error_message()
                    << "\n"
                    << server->log();
      break;
    }
    CheckStored(trials, acknowledged, /*finished=*/false);
    if (database_->kind() == StoreKind::kSqlite) {
      EXPECT_EQ(SqliteIntegrity(database_->sqlite_path()), "ok");
    } else {
      absl::Status indexes = PostgresIndexesCheck(*database_->postgres());
      EXPECT_TRUE(indexes.ok()) << indexes;
    }
  }

  // The agents finish the trials they hold, across the last restart.
  stop = true;
  for (std::thread& thread : threads) thread.join();
  const Ledger::Snapshot all = ledger.Take();
  EXPECT_THAT(all.violations, IsEmpty());
  std::vector<v1::Trial> trials;
  ASSERT_TRUE(StudyClient(server->address()).ListTrials(kCrashingStudy, true, &trials).ok());
  CheckStored(trials, all, /*finished=*/true);
  // The run did work between the kills, and exercised taking trials back.
  EXPECT_GE(all.completed.size(), static_cast<size_t>(kKills));
  int forgotten = 0;
  for (const auto& agent : agents) forgotten += agent->forgotten();
  RecordProperty("trials", std::to_string(trials.size()));
  RecordProperty("forgotten", std::to_string(forgotten));
  std::cout << "seed " << seed_ << ": " << trials.size() << " trials, " << all.acknowledged.size()
            << " measurements acknowledged, " << forgotten
            << " trials taken back by their agents after " << kKills << " kills\n";
}

TEST_P(CrashRecoveryTest, JobAgentsReconnectAndALostTrialFailsAcrossRepeatedKills) {
  // Restarted after each kill on the same port.
  std::unique_ptr<ServerProcess> server = MakeServer("start", RestartablePort());
  server->Start();
  const int port = server->port();
  {
    grpc::ClientContext context;
    v1::SubmitTrainingJobRequest request;
    *request.mutable_job() = SlowJob(dir_.path() + "/runs");
    v1::Job submitted;
    grpc::Status status = server->JobStub()->SubmitTrainingJob(&context, request, &submitted);
    ASSERT_TRUE(status.ok()) << status.error_message();
  }

  int64_t lost_trial = 0;
  for (int kill = 1; kill <= kJobKills; ++kill) {
    SCOPED_TRACE(absl::StrFormat("kill %d", kill));
    Pause(200, 1200);
    v1::GetJobResponse job;
    ASSERT_TRUE(GetJob(*server, &job).ok()) << server->log();
    int64_t trial_id = 0;
    int64_t agent = RunningAgent(job, &trial_id);
    // Until an agent has been lost, the kill waits for one to run (a slow
    // start, under a sanitizer say, may leave none running at a random time).
    const auto agent_deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (lost_trial == 0 && agent == 0 && !Ended(job) &&
           std::chrono::steady_clock::now() < agent_deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      ASSERT_TRUE(GetJob(*server, &job).ok()) << server->log();
      agent = RunningAgent(job, &trial_id);
    }
    if (Ended(job)) break;
    server->Kill();
    // Once, an agent dies too while no server is up: nobody reports its end.
    if (lost_trial == 0 && agent > 0) {
      ASSERT_EQ(killpg(static_cast<pid_t>(agent), SIGKILL), 0);
      lost_trial = trial_id;
    }
    Pause(0, 300);
    server = MakeServer(absl::StrFormat("restart-%d", kill), port);
    server->Start();
  }

  v1::GetJobResponse job;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (std::chrono::steady_clock::now() < deadline) {
    ASSERT_TRUE(GetJob(*server, &job).ok()) << server->log();
    if (Ended(job)) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  ASSERT_EQ(job.job().state(), v1::Job::SUCCEEDED) << job.DebugString() << server->log();

  std::vector<v1::Trial> trials;
  ASSERT_TRUE(StudyClient(server->address()).ListTrials(kKilledJob, true, &trials).ok());
  ASSERT_EQ(trials.size(), static_cast<size_t>(kKilledTrials));
  int succeeded = 0;
  for (const v1::Trial& trial : trials) {
    SCOPED_TRACE(trial.DebugString());
    if (trial.id() == lost_trial && trial.state() == v1::Trial::FAILED) {
      EXPECT_THAT(trial.status_reason(), HasSubstr("without its agent reporting the outcome"));
      continue;
    }
    // Its agent outlived every kill and delivered each step exactly once.
    ASSERT_EQ(trial.state(), v1::Trial::SUCCEEDED);
    ++succeeded;
    ASSERT_EQ(trial.measurements_size(), kKilledSteps);
    for (int i = 0; i < kKilledSteps; ++i) EXPECT_EQ(trial.measurements(i).step(), i + 1);
    EXPECT_EQ(trial.final_measurement().step(), kKilledSteps);
  }
  EXPECT_NE(lost_trial, 0) << "no agent was running at any kill";
  EXPECT_GE(succeeded, kKilledTrials - 1);
  EXPECT_EQ(job.trial_counts().active(), 0);
}

// The server killed after starting a trial's replicas and before storing
// its run's backend handle: the run it stored first, before submitting it,
// has its replicas PENDING and no handle. The server started next does not
// start them again: it finds their agents' processes (the local backend
// knows them by their command lines), takes the run over with their handle,
// and the trial ends SUCCEEDED, launched once.
TEST_P(CrashRecoveryTest, ATrialStartedJustBeforeAKillIsNotStartedAgain) {
  constexpr char kJob[] = "handle_lost";
  constexpr int kSteps = 12;
  // A short lease: on PostgreSQL the next server drives the job 2 s after
  // the kill, while the trial still runs.
  const auto make_server = [&](const std::string& name, int port) {
    return std::make_unique<ServerProcess>(
        dir_.path() + "/" + name, port,
        std::vector<std::string>{"--db", database_->url(), "--lease-time", "2s"});
  };
  std::unique_ptr<ServerProcess> server = make_server("start", RestartablePort());
  server->Start();
  const int port = server->port();
  const std::string runs_dir = dir_.path() + "/runs";
  {
    grpc::ClientContext context;
    v1::SubmitTrainingJobRequest request;
    *request.mutable_job() = CountingJob(kJob, runs_dir, /*max_trials=*/1, /*parallel=*/1, kSteps);
    v1::Job submitted;
    grpc::Status status = server->JobStub()->SubmitTrainingJob(&context, request, &submitted);
    ASSERT_TRUE(status.ok()) << status.error_message();
  }
  WaitForJob(*server, kJob, [](const v1::GetJobResponse& job) {
    int64_t trial_id = 0;
    return RunningAgent(job, &trial_id) > 0;
  });
  server->Kill();
  {
    // The run as the killed server would have left it, had it died just
    // before storing the handle.
    absl::StatusOr<std::unique_ptr<storage::Storage>> store =
        storage::OpenStorage(database_->url());
    ASSERT_TRUE(store.ok()) << store.status();
    absl::StatusOr<std::vector<v1::TrialRun>> runs = (*store)->ListTrialRuns(kJob);
    ASSERT_TRUE(runs.ok()) << runs.status();
    ASSERT_EQ(runs->size(), 1u);
    v1::TrialRun run = runs->front();
    run.clear_backend_handle();
    for (v1::ReplicaStatus& replica : *run.mutable_replicas()) {
      replica.set_state(v1::ReplicaStatus::PENDING);
      replica.clear_pid();
      replica.clear_host();
    }
    ASSERT_TRUE((*store)->PutTrialRun(kJob, run).ok());
  }
  server = make_server("restart", port);
  server->Start();

  const v1::GetJobResponse ended = WaitForJob(*server, kJob, Ended, std::chrono::seconds(120));
  EXPECT_EQ(ended.job().state(), v1::Job::SUCCEEDED)
      << ended.job().error_message() << server->log();
  const std::vector<v1::Trial> trials = ListTrials(*server, kJob);
  ASSERT_EQ(trials.size(), 1u);
  EXPECT_EQ(trials[0].state(), v1::Trial::SUCCEEDED) << trials[0].status_reason();
  EXPECT_EQ(trials[0].final_measurement().step(), kSteps);
  EXPECT_EQ(ReadFile(absl::StrCat(runs_dir, "/", kJob, "/", trials[0].id(), "/launches")),
            "launched\n")
      << "started again" << server->log();
  EXPECT_THAT(server->log(), HasSubstr("its run was stored without a backend handle"));
  EXPECT_THAT(server->log(), HasSubstr("taken over, not launched again"));
  // Its master's exit, as its agent reported it.
  ASSERT_EQ(ended.trial_runs_size(), 1);
  EXPECT_THAT(ended.trial_runs(0).backend_handle(), ::testing::StartsWith("local:"));
  EXPECT_NE(ended.trial_runs(0).replicas(0).pid(), 0);
  ASSERT_EQ(ended.trial_runs(0).replicas_size(), 1);
  EXPECT_EQ(ended.trial_runs(0).replicas(0).state(), v1::ReplicaStatus::EXITED)
      << ended.DebugString();
  EXPECT_EQ(ended.trial_runs(0).replicas(0).exit_code(), 0);
}

VERNIER_INSTANTIATE_FOR_EVERY_STORE(CrashRecoveryTest);

}  // namespace
}  // namespace vernier::testing
