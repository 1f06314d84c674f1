// The trial run supervisor over a real store, a fake backend and a fake
// clock: every transition of a trial attempt, driven pass by pass as the
// job controller drives it.
#include "tuner/trial_run_supervisor.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <chrono>
#include <csignal>
#include <thread>

#include "absl/time/clock.h"
#include "scheduler/local/local_admission.h"
#include "scheduler/transient_backend_error.h"
#include "tests/support/fake_backend.h"
#include "tests/support/fake_clock.h"
#include "tests/support/subprocess.h"
#include "tests/support/tuning_job.h"
#include "tuner/job_submission.h"
#include "tuner/storage/scoped_write_fence.h"
#include "tuner/storage/sqlite/sqlite_storage.h"

namespace vernier::tuner {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Optional;

// A job whose trials run a master and `workers` workers, each with `gpus`
// GPUs.
v1::Job MakeJob(const std::string& job_id, const std::string& dir, int workers, int gpus = 0) {
  v1::Job job = testing::TuningJob(job_id, dir, /*max_trials=*/4, /*parallel=*/2);
  v1::TrainingInput& input = *job.mutable_training_input();
  input.set_scale_tier("CUSTOM");
  input.set_master_type("n1-standard-4");
  if (gpus > 0) {
    input.mutable_master_config()->mutable_accelerator_config()->set_count(gpus);
    input.mutable_master_config()->mutable_accelerator_config()->set_type("NVIDIA_TESLA_T4");
  }
  if (workers > 0) {
    input.set_worker_type("n1-standard-4");
    input.set_worker_count(workers);
    if (gpus > 0) {
      input.mutable_worker_config()->mutable_accelerator_config()->set_count(gpus);
      input.mutable_worker_config()->mutable_accelerator_config()->set_type("NVIDIA_TESLA_T4");
    }
  }
  return job;
}

// Why a silent agent's trial fails with the agent timeout at 1 min.
constexpr char kSilentFor1m[] = "the agent of master-0 sent no heartbeat for 1m (agent timeout 1m)";

class TrialRunSupervisorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<storage::SqliteStorage>> opened =
        storage::SqliteStorage::Open(dir_.path() + "/vernier.db");
    ASSERT_TRUE(opened.ok()) << opened.status();
    storage_ = std::move(*opened);
    studies_ = std::make_unique<StudyManager>(*storage_, clock_.AsClock());
    Restart();
  }

  // A new admission and supervisor over the same store and backend, as after
  // a restart of the server.
  void Restart(absl::Duration agent_timeout = absl::Seconds(60)) {
    supervisor_.reset();
    admission_ = std::make_unique<scheduler::LocalAdmission>(
        std::vector<int>{0, 1, 2, 3}, scheduler::PortRange{20000, 20099}, [](int) { return true; });
    TrialRunSupervisorOptions options;
    options.launch.agent_path = "/opt/vernier-agent";
    options.launch.server_address = "127.0.0.1:7730";
    options.launch.grace_period = std::chrono::milliseconds(0);
    options.lost_replica_timeout = absl::Seconds(10);
    options.agent_timeout = agent_timeout;
    supervisor_ = std::make_unique<TrialRunSupervisor>(*storage_, *studies_, backend_, *admission_,
                                                       options, clock_.AsClock());
  }

  // Stores `job` as submitted and running.
  v1::Job Submit(v1::Job job, int max_retries = 0) {
    job.mutable_training_input()->mutable_scheduling()->set_max_retries(max_retries);
    JobSubmission submission(*storage_, *studies_, backend_, *admission_, {}, clock_.AsClock());
    absl::StatusOr<v1::Job> submitted = submission.Submit(job);
    EXPECT_TRUE(submitted.ok()) << submitted.status();
    absl::StatusOr<v1::Job> running = storage_->UpdateJob(job.job_id(), [](v1::Job& stored) {
      stored.set_state(v1::Job::RUNNING);
      return absl::OkStatus();
    });
    EXPECT_TRUE(running.ok()) << running.status();
    return *running;
  }

  // The job's trials and runs as the store holds them.
  void Load(const v1::Job& job) {
    absl::StatusOr<storage::Page<v1::Trial>> trials = storage_->ListTrials(job.study_name(), {});
    ASSERT_TRUE(trials.ok()) << trials.status();
    trials_ = trials->items;
    runs_.clear();
    absl::StatusOr<std::vector<v1::TrialRun>> runs = storage_->ListTrialRuns(job.job_id());
    ASSERT_TRUE(runs.ok()) << runs.status();
    for (const v1::TrialRun& run : *runs) runs_[run.trial_id()] = run;
  }

  std::vector<v1::Trial> Running() {
    std::vector<v1::Trial> running;
    for (const v1::Trial& trial : trials_) {
      if (trial.state() == v1::Trial::ACTIVE || trial.state() == v1::Trial::STOPPING) {
        running.push_back(trial);
      }
    }
    return running;
  }

  // The supervisor's part of one pass of the job controller.
  bool Supervise(const v1::Job& job) {
    Load(job);
    absl::StatusOr<bool> settled = supervisor_->Supervise(job, trials_, runs_);
    EXPECT_TRUE(settled.ok()) << settled.status();
    return settled.value_or(false);
  }

  StartedTrials Start(const v1::Job& job, int slots) {
    Load(job);
    StartedTrials started;
    absl::StatusOr<v1::Study> study = storage_->GetStudy(job.study_name());
    EXPECT_TRUE(study.ok()) << study.status();
    EXPECT_TRUE(supervisor_->StartTrials(job, *study, Running(), runs_, slots, started).ok());
    return started;
  }

  // The supervisor's part of a whole pass of the job controller over one
  // store read: supervise, resume, then start up to `slots` trials.
  void Pass(const v1::Job& job, int slots) {
    Load(job);
    ASSERT_TRUE(supervisor_->Supervise(job, trials_, runs_).ok());
    absl::StatusOr<v1::Study> study = storage_->GetStudy(job.study_name());
    ASSERT_TRUE(study.ok()) << study.status();
    const std::vector<v1::Trial> running = Running();
    EXPECT_TRUE(supervisor_->ResumeTrials(job, *study, running, runs_).ok());
    StartedTrials started;
    EXPECT_TRUE(supervisor_->StartTrials(job, *study, running, runs_, slots, started).ok());
  }

  void Resume(const v1::Job& job) {
    Load(job);
    absl::StatusOr<v1::Study> study = storage_->GetStudy(job.study_name());
    ASSERT_TRUE(study.ok()) << study.status();
    EXPECT_TRUE(supervisor_->ResumeTrials(job, *study, Running(), runs_).ok());
  }

  v1::Trial TrialOf(const v1::Job& job, int64_t trial_id) {
    absl::StatusOr<v1::Trial> trial = storage_->GetTrial(job.study_name(), trial_id, false);
    EXPECT_TRUE(trial.ok()) << trial.status();
    return trial.value_or(v1::Trial());
  }

  v1::TrialRun RunOf(const v1::Job& job, int64_t trial_id) {
    absl::StatusOr<std::vector<v1::TrialRun>> runs = storage_->ListTrialRuns(job.job_id());
    EXPECT_TRUE(runs.ok()) << runs.status();
    if (!runs.ok()) return v1::TrialRun();
    for (const v1::TrialRun& run : *runs) {
      if (run.trial_id() == trial_id) return run;
    }
    ADD_FAILURE() << "no run of trial " << trial_id;
    return v1::TrialRun();
  }

  std::optional<TrialAttemptState> StateOf(const v1::Job& job, int64_t trial_id) {
    return supervisor_->AttemptState({job.job_id(), trial_id});
  }

  // Trial 1, a second short of a timeout, is still ACTIVE at a pass; one
  // second later it is FAILED with a reason that holds `reason`.
  void ExpectFailedOneSecondLater(const v1::Job& job, const std::string& reason) {
    Supervise(job);
    EXPECT_EQ(TrialOf(job, 1).state(), v1::Trial::ACTIVE);
    clock_.Advance(absl::Seconds(1));
    Supervise(job);
    const v1::Trial trial = TrialOf(job, 1);
    EXPECT_EQ(trial.state(), v1::Trial::FAILED);
    EXPECT_THAT(trial.status_reason(), HasSubstr(reason));
    WaitUntilEnded(job, 1);
  }

  // Waits until the background thread that ends the trial's replicas is done.
  void WaitUntilEnded(const v1::Job& job, int64_t trial_id) {
    for (int i = 0; i < 30000; ++i) {
      std::optional<TrialAttemptState> state = StateOf(job, trial_id);
      if (!state.has_value() ||
          (*state != TrialAttemptState::kEnding && *state != TrialAttemptState::kRetrying)) {
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ADD_FAILURE() << "trial " << trial_id << "'s replicas were never ended";
  }

  absl::Status Exit(const v1::Job& job, int64_t trial_id, const std::string& role, int code,
                    const std::string& log_tail = "") {
    v1::ReportExitRequest report;
    report.mutable_replica()->set_study_name(job.study_name());
    report.mutable_replica()->set_trial_id(trial_id);
    report.mutable_replica()->set_role(role);
    report.mutable_replica()->set_index(0);
    report.set_exit_code(code);
    report.set_log_tail(log_tail);
    return supervisor_->OnReplicaExit(report);
  }

  testing::TempDir dir_;
  testing::FakeClock clock_;
  testing::FakeBackend backend_;
  std::unique_ptr<storage::SqliteStorage> storage_;
  std::unique_ptr<StudyManager> studies_;
  std::unique_ptr<scheduler::LocalAdmission> admission_;
  std::unique_ptr<TrialRunSupervisor> supervisor_;
  std::vector<v1::Trial> trials_;
  TrialRuns runs_;
};

TEST_F(TrialRunSupervisorTest, AGrantedTrialIsLaunchedAndItsRunRecorded) {
  const v1::Job job = Submit(MakeJob("launch", dir_.path(), 1));
  EXPECT_EQ(Start(job, 1).launched, 1);
  ASSERT_EQ(backend_.launches().size(), 1u);
  EXPECT_EQ(backend_.launches()[0].attempt, 0);
  EXPECT_THAT(StateOf(job, 1), Optional(TrialAttemptState::kRunning));
  const v1::TrialRun run = RunOf(job, 1);
  EXPECT_EQ(run.backend_handle(), "fake:1");
  ASSERT_EQ(run.replicas_size(), 2);
  EXPECT_NE(run.replicas(0).port(), 0);
  EXPECT_NE(run.replicas(0).port(), run.replicas(1).port());
  EXPECT_EQ(admission_->held_ports(), 2);
  // A pass over a healthy run changes nothing.
  EXPECT_TRUE(Supervise(job));
  EXPECT_EQ(TrialOf(job, 1).state(), v1::Trial::ACTIVE);
}

TEST_F(TrialRunSupervisorTest, ALaunchThatFailsFailsTheTrialAndGivesItsGpusBack) {
  const v1::Job job = Submit(MakeJob("unstartable", dir_.path(), 1, /*gpus=*/2));
  backend_.FailSubmits(absl::UnavailableError("the cluster is down"));
  EXPECT_EQ(Start(job, 1).launched, 1);
  const v1::Trial trial = TrialOf(job, 1);
  EXPECT_EQ(trial.state(), v1::Trial::FAILED);
  EXPECT_EQ(trial.status_reason(), "could not start the trial: the cluster is down");
  const v1::TrialRun run = RunOf(job, 1);
  for (const v1::ReplicaStatus& replica : run.replicas()) {
    EXPECT_EQ(replica.state(), v1::ReplicaStatus::LOST);
    EXPECT_EQ(replica.gpus_size(), 2);
  }
  EXPECT_EQ(admission_->free_gpus(), 4);
  EXPECT_THAT(StateOf(job, 1), Optional(TrialAttemptState::kEnded));
  EXPECT_TRUE(Supervise(job));
  EXPECT_EQ(StateOf(job, 1), std::nullopt);
}

absl::Status SlurmctldAway() {
  return scheduler::MarkBackendTransient(absl::UnavailableError(
      "`sbatch --parsable s.sh` exited with code 1: sbatch: error: Batch job submission failed: "
      "Unable to contact slurm controller (connect failure)"));
}

TEST_F(TrialRunSupervisorTest, ALaunchWhileTheBackendIsAwayWaitsAndIsSubmittedOnceItIsBack) {
  const v1::Job job = Submit(MakeJob("waits", dir_.path(), 0));
  backend_.SetUnreachableSince(absl::Now());
  backend_.FailSubmits(SlurmctldAway());
  EXPECT_EQ(Start(job, 1).launched, 1);
  EXPECT_EQ(TrialOf(job, 1).state(), v1::Trial::ACTIVE);
  EXPECT_THAT(StateOf(job, 1), Optional(TrialAttemptState::kWaiting));
  // Recorded, never submitted: no handle, so nothing takes it for running.
  EXPECT_EQ(RunOf(job, 1).backend_handle(), "");
  // Still away: each pass submits it once more, never twice.
  Pass(job, 0);
  EXPECT_EQ(backend_.launches().size(), 2u);
  EXPECT_EQ(TrialOf(job, 1).state(), v1::Trial::ACTIVE);

  backend_.FailSubmits(absl::OkStatus());
  backend_.SetUnreachableSince(std::nullopt);
  Pass(job, 0);
  ASSERT_EQ(backend_.launches().size(), 3u);
  EXPECT_EQ(backend_.launches()[2].attempt, 0);
  EXPECT_THAT(StateOf(job, 1), Optional(TrialAttemptState::kRunning));
  EXPECT_EQ(RunOf(job, 1).backend_handle(), "fake:3");
  EXPECT_EQ(TrialOf(job, 1).state(), v1::Trial::ACTIVE);
  // Running now: later passes submit nothing more.
  Pass(job, 0);
  EXPECT_EQ(backend_.launches().size(), 3u);
}

TEST_F(TrialRunSupervisorTest, ALaunchFailsOnceTheBackendStayedAwayPastTheLimit) {
  const v1::Job job = Submit(MakeJob("gives_up", dir_.path(), 0));
  backend_.SetUnreachableSince(absl::Now() - absl::Minutes(11));
  backend_.FailSubmits(SlurmctldAway());
  Start(job, 1);
  const v1::Trial trial = TrialOf(job, 1);
  EXPECT_EQ(trial.state(), v1::Trial::FAILED);
  EXPECT_THAT(trial.status_reason(),
              ::testing::StartsWith("could not start the trial: Slurm stayed unreachable for "
                                    "longer than --slurm-outage-limit (10m): `sbatch"));
}

TEST_F(TrialRunSupervisorTest, AMasterThatFailsWithoutRetriesFailsTheTrial) {
  const v1::Job job = Submit(MakeJob("fails", dir_.path(), 0));
  Start(job, 1);
  ASSERT_TRUE(Exit(job, 1, "master", 3, "Traceback: boom").ok());
  const v1::Trial trial = TrialOf(job, 1);
  EXPECT_EQ(trial.state(), v1::Trial::FAILED);
  EXPECT_EQ(trial.status_reason(), "master-0 exited with code 3; last output:\nTraceback: boom");
  // The backend still shows it running: the next pass ends it, the one
  // after gives its ports back.
  EXPECT_FALSE(Supervise(job));
  WaitUntilEnded(job, 1);
  EXPECT_THAT(backend_.cancelled(), ElementsAre("fake:1"));
  EXPECT_TRUE(Supervise(job));
  EXPECT_EQ(StateOf(job, 1), std::nullopt);
  EXPECT_EQ(admission_->held_ports(), 0);
}

TEST_F(TrialRunSupervisorTest, AFailedMasterIsRetriedAsTheNextAttemptWithItsPorts) {
  const v1::Job job = Submit(MakeJob("retried", dir_.path(), 0), /*max_retries=*/1);
  Start(job, 1);
  const v1::TrialRun first = RunOf(job, 1);
  const int port = first.replicas(0).port();
  ASSERT_TRUE(Exit(job, 1, "master", 1).ok());
  // Not decided yet: the failure waits for the next pass.
  EXPECT_EQ(TrialOf(job, 1).state(), v1::Trial::ACTIVE);
  Supervise(job);
  WaitUntilEnded(job, 1);
  EXPECT_THAT(StateOf(job, 1), Optional(TrialAttemptState::kRelaunch));
  EXPECT_THAT(backend_.cancelled(), ElementsAre("fake:1"));
  // A report from the ended attempt's replicas changes nothing.
  ASSERT_TRUE(Exit(job, 1, "master", 143).ok());
  EXPECT_EQ(TrialOf(job, 1).state(), v1::Trial::ACTIVE);

  Supervise(job);
  Resume(job);
  ASSERT_EQ(backend_.launches().size(), 2u);
  EXPECT_EQ(backend_.launches()[1].attempt, 1);
  EXPECT_THAT(StateOf(job, 1), Optional(TrialAttemptState::kRunning));
  const v1::TrialRun second = RunOf(job, 1);
  EXPECT_EQ(second.attempt(), 1);
  EXPECT_EQ(second.backend_handle(), "fake:2");
  EXPECT_EQ(second.replicas(0).port(), port);

  // The last retry failing fails the trial.
  ASSERT_TRUE(Exit(job, 1, "master", 1).ok());
  Supervise(job);
  const v1::Trial trial = TrialOf(job, 1);
  EXPECT_EQ(trial.state(), v1::Trial::FAILED);
  EXPECT_EQ(trial.status_reason(), "master-0 exited with code 1 (after 1 retries)");
}

TEST_F(TrialRunSupervisorTest, AWorkerThatFailsWhileTheMasterRunsFailsTheTrial) {
  const v1::Job job = Submit(MakeJob("worker", dir_.path(), 1));
  Start(job, 1);
  backend_.SetReplica("fake:1", "worker", 0, v1::ReplicaStatus::EXITED, 2);
  // Its master still runs: it is ended in the same pass.
  EXPECT_FALSE(Supervise(job));
  const v1::Trial trial = TrialOf(job, 1);
  EXPECT_EQ(trial.state(), v1::Trial::FAILED);
  EXPECT_THAT(trial.status_reason(), HasSubstr("worker-0 exited with code 2; see "));
  WaitUntilEnded(job, 1);
  EXPECT_THAT(backend_.cancelled(), ElementsAre("fake:1"));
}

TEST_F(TrialRunSupervisorTest, AWorkerFailureItsAgentReportsFailsTheTrialAtTheNextPass) {
  const v1::Job job = Submit(MakeJob("reported", dir_.path(), 1));
  Start(job, 1);
  ASSERT_TRUE(Exit(job, 1, "worker", 1, "worker broke").ok());
  EXPECT_EQ(TrialOf(job, 1).state(), v1::Trial::ACTIVE);
  Supervise(job);
  const v1::Trial trial = TrialOf(job, 1);
  EXPECT_EQ(trial.state(), v1::Trial::FAILED);
  EXPECT_EQ(trial.status_reason(), "worker-0 exited with code 1; last output:\nworker broke");
}

TEST_F(TrialRunSupervisorTest, AMasterGoneWithoutAReportIsLostAfterTheTimeout) {
  const v1::Job job = Submit(MakeJob("lost", dir_.path(), 0));
  Start(job, 1);
  backend_.SetReplica("fake:1", "master", 0, v1::ReplicaStatus::LOST);
  Supervise(job);
  clock_.Advance(absl::Seconds(9));
  // A report may still be on its way for 10 s.
  ExpectFailedOneSecondLater(job,
                             "master-0 vanished without its agent reporting the outcome; see ");
}

TEST_F(TrialRunSupervisorTest, ASilentAgentFailsItsTrialAfterTheAgentTimeout) {
  const v1::Job job = Submit(MakeJob("silent", dir_.path(), 0));
  Start(job, 1);
  v1::ReplicaId master;
  master.set_study_name(job.study_name());
  master.set_trial_id(1);
  master.set_role("master");
  Supervise(job);
  clock_.Advance(absl::Seconds(50));
  supervisor_->OnAgentContact(master);
  clock_.Advance(absl::Seconds(59));
  ExpectFailedOneSecondLater(job, kSilentFor1m);
  EXPECT_THAT(backend_.cancelled(), ElementsAre("fake:1"));
  EXPECT_THAT(StateOf(job, 1), Optional(TrialAttemptState::kEnded));
}

TEST_F(TrialRunSupervisorTest, TimeSlurmctldWasAwayDoesNotCountAsAnAgentsSilence) {
  // A replica whose step waits for slurmctld to start (the batch script
  // waits while it is away) says nothing meanwhile.
  const v1::Job job = Submit(MakeJob("slurm_away", dir_.path(), 0));
  Start(job, 1);
  Supervise(job);
  backend_.SetUnreachableSince(clock_.Now());
  clock_.Advance(absl::Minutes(5));
  Supervise(job);
  EXPECT_EQ(TrialOf(job, 1).state(), v1::Trial::ACTIVE);
  backend_.SetUnreachableSince(std::nullopt);
  backend_.SetLastOutageEnded(clock_.Now());
  // From the outage's end on, the agent timeout runs as ever.
  clock_.Advance(absl::Seconds(59));
  ExpectFailedOneSecondLater(job, kSilentFor1m);
}

TEST_F(TrialRunSupervisorTest, CancellingARunningTrialEndsItsReplicasAndMarksItCancelled) {
  const v1::Job job = Submit(MakeJob("cancelled", dir_.path(), 1));
  Start(job, 1);
  Load(job);
  supervisor_->CancelTrials(job, Running(), runs_, "cancelled with job cancelled");
  // Cancelling twice ends the replicas once.
  supervisor_->CancelTrials(job, Running(), runs_, "cancelled with job cancelled");
  WaitUntilEnded(job, 1);
  EXPECT_THAT(backend_.cancelled(), ElementsAre("fake:1"));
  const v1::Trial trial = TrialOf(job, 1);
  EXPECT_EQ(trial.state(), v1::Trial::CANCELLED);
  EXPECT_EQ(trial.status_reason(), "cancelled with job cancelled");
  // The ended run's replica states are stored.
  const v1::TrialRun run = RunOf(job, 1);
  for (const v1::ReplicaStatus& replica : run.replicas()) {
    EXPECT_EQ(replica.state(), v1::ReplicaStatus::EXITED);
    EXPECT_EQ(replica.term_signal(), SIGTERM);
  }
  EXPECT_TRUE(Supervise(job));
  EXPECT_EQ(StateOf(job, 1), std::nullopt);
  EXPECT_EQ(admission_->held_ports(), 0);
}

TEST_F(TrialRunSupervisorTest, AfterARestartARunThatEndedUnreportedIsLostAndItsGrantRestored) {
  const v1::Job job = Submit(MakeJob("restarted", dir_.path(), 0, /*gpus=*/2));
  Start(job, 1);
  backend_.SetReplica("fake:1", "master", 0, v1::ReplicaStatus::EXITED, 0);

  Restart();
  supervisor_->RestoreGrants({job});
  EXPECT_EQ(admission_->free_gpus(), 2);
  EXPECT_EQ(admission_->held_ports(), 1);
  EXPECT_THAT(StateOf(job, 1), Optional(TrialAttemptState::kRunning));
  Supervise(job);
  EXPECT_EQ(TrialOf(job, 1).state(), v1::Trial::ACTIVE);
  clock_.Advance(absl::Seconds(10));
  EXPECT_TRUE(Supervise(job));
  const v1::Trial trial = TrialOf(job, 1);
  EXPECT_EQ(trial.state(), v1::Trial::FAILED);
  EXPECT_THAT(trial.status_reason(),
              HasSubstr("master-0 exited with code 0 without its agent reporting the outcome"));
  // Nothing of it runs: its GPUs and port come back at the next pass.
  EXPECT_TRUE(Supervise(job));
  EXPECT_EQ(admission_->free_gpus(), 4);
  EXPECT_EQ(admission_->held_ports(), 0);
}

TEST_F(TrialRunSupervisorTest, ATrialHandedOutButNeverStartedStartsAfterARestart) {
  const v1::Job job = Submit(MakeJob("orphan", dir_.path(), 0));
  absl::StatusOr<SuggestResult> suggested = studies_->SuggestTrials(job.study_name(), 1, "");
  ASSERT_TRUE(suggested.ok()) << suggested.status();
  ASSERT_EQ(suggested->trials.size(), 1u);
  Resume(job);
  ASSERT_EQ(backend_.launches().size(), 1u);
  EXPECT_EQ(backend_.launches()[0].trial_id, suggested->trials[0].id());
  EXPECT_THAT(StateOf(job, suggested->trials[0].id()), Optional(TrialAttemptState::kRunning));
}

// Another server (or this one before a restart) handed out a trial and
// stored its run, then stopped or died before storing the run's backend
// handle: whether it submitted the run is not known.
class RunWithoutHandleTest : public TrialRunSupervisorTest {
 protected:
  int64_t StoreRunWithoutHandle(const v1::Job& job, const std::vector<int>& gpus = {}) {
    absl::StatusOr<SuggestResult> suggested = studies_->SuggestTrials(job.study_name(), 1, "");
    EXPECT_TRUE(suggested.ok()) << suggested.status();
    if (!suggested.ok() || suggested->trials.empty()) return 0;
    v1::TrialRun run;
    run.set_trial_id(suggested->trials[0].id());
    run.set_trial_dir(dir_.path() + "/runs/1");
    *run.mutable_launch_time() = ToTimestamp(clock_.Now());
    v1::ReplicaStatus& master = *run.add_replicas();
    master.set_role("master");
    master.set_state(v1::ReplicaStatus::PENDING);
    for (int gpu : gpus) master.add_gpus(gpu);
    EXPECT_TRUE(storage_->PutTrialRun(job.job_id(), run).ok());
    return run.trial_id();
  }

  // A run without its handle whose submission the backend finds as
  // fake:elsewhere, taken over by a pass.
  int64_t StoreRunTakenOver(const v1::Job& job) {
    const int64_t trial = StoreRunWithoutHandle(job);
    backend_.MarkSubmitted(trial, 0, "fake:elsewhere");
    Pass(job, 0);
    EXPECT_EQ(RunOf(job, trial).backend_handle(), "fake:elsewhere");
    return trial;
  }

  // Takes `job`'s lease for `holder`; its fencing token.
  int64_t Lease(const v1::Job& job, const std::string& holder) {
    const std::vector<std::string> ids = {job.job_id()};
    absl::StatusOr<std::vector<storage::JobLease>> leases =
        storage_->AcquireJobLeases(holder, ids, absl::Seconds(30));
    EXPECT_TRUE(leases.ok() && leases->size() == 1u) << leases.status();
    return leases.ok() && !leases->empty() ? leases->front().token : 0;
  }

  // Hands `job`'s lease from server "one" to server "two"; two's token.
  int64_t HandOver(const v1::Job& job) {
    const std::vector<std::string> ids = {job.job_id()};
    EXPECT_TRUE(storage_->ReleaseJobLeases("one", ids).ok());
    return Lease(job, "two");
  }

  // StartTrials of one trial as server "one", holding the lease `token`.
  absl::Status StartAsServerOne(const v1::Job& job, int64_t token) {
    Load(job);
    absl::StatusOr<v1::Study> study = storage_->GetStudy(job.study_name());
    if (!study.ok()) return study.status();
    StartedTrials started;
    storage::ScopedWriteFence by_one({job.job_id(), "one", token});
    return supervisor_->StartTrials(job, *study, Running(), runs_, 1, started);
  }

  void HearMaster(const v1::Job& job, int64_t trial_id) {
    v1::ReplicaId master;
    master.set_study_name(job.study_name());
    master.set_trial_id(trial_id);
    master.set_role("master");
    supervisor_->OnAgentContact(master);
  }
};

TEST_F(RunWithoutHandleTest, ItIsLaunchedAgainOnceNoAgentOfItWasHeardForTheAgentTimeout) {
  const v1::Job job = Submit(MakeJob("unheard", dir_.path(), 0));
  const int64_t trial = StoreRunWithoutHandle(job);
  Pass(job, 0);
  clock_.Advance(absl::Seconds(59));
  Pass(job, 0);
  EXPECT_TRUE(backend_.launches().empty()) << "launched while its first launch may still speak";
  clock_.Advance(absl::Seconds(1));
  Pass(job, 0);
  ASSERT_EQ(backend_.launches().size(), 1u);
  EXPECT_EQ(backend_.launches()[0].trial_id, trial);
  EXPECT_EQ(backend_.launches()[0].attempt, 0);
  EXPECT_EQ(RunOf(job, trial).backend_handle(), "fake:1");
  EXPECT_EQ(TrialOf(job, trial).state(), v1::Trial::ACTIVE);
}

TEST_F(RunWithoutHandleTest, WithoutAnAgentTimeoutItWaitsTheLostReplicaTimeout) {
  Restart(/*agent_timeout=*/absl::ZeroDuration());
  const v1::Job job = Submit(MakeJob("no_timeout", dir_.path(), 0));
  StoreRunWithoutHandle(job);
  clock_.Advance(absl::Seconds(9));
  Pass(job, 0);
  EXPECT_TRUE(backend_.launches().empty());
  clock_.Advance(absl::Seconds(1));
  Pass(job, 0);
  EXPECT_EQ(backend_.launches().size(), 1u);
}

TEST_F(RunWithoutHandleTest, OnceItsAgentIsHeardItRunsOnItsReportsAndIsNeverLaunchedAgain) {
  const v1::Job job = Submit(MakeJob("heard", dir_.path(), 0));
  const int64_t trial = StoreRunWithoutHandle(job);
  Pass(job, 0);
  clock_.Advance(absl::Seconds(30));
  EXPECT_EQ(RunOf(job, trial).replicas(0).state(), v1::ReplicaStatus::PENDING);
  HearMaster(job, trial);
  clock_.Advance(absl::Seconds(59));
  Pass(job, 0);
  EXPECT_EQ(TrialOf(job, trial).state(), v1::Trial::ACTIVE);
  EXPECT_EQ(RunOf(job, trial).replicas(0).state(), v1::ReplicaStatus::RUNNING)
      << "its agent speaks: it runs";
  const v1::Measurement measurement = testing::AccuracyMeasurement(0.9);
  ASSERT_TRUE(studies_->AddMeasurements(job.study_name(), trial, {&measurement, 1}).ok());
  ASSERT_TRUE(Exit(job, trial, "master", 0).ok());
  EXPECT_EQ(TrialOf(job, trial).state(), v1::Trial::SUCCEEDED);
  const v1::ReplicaStatus exited = RunOf(job, trial).replicas(0);
  EXPECT_EQ(exited.state(), v1::ReplicaStatus::EXITED);
  EXPECT_EQ(exited.exit_code(), 0);
  clock_.Advance(absl::Minutes(5));
  EXPECT_TRUE(Supervise(job));
  EXPECT_EQ(RunOf(job, trial).replicas(0).state(), v1::ReplicaStatus::EXITED);
  Pass(job, 0);
  EXPECT_TRUE(backend_.launches().empty());
  EXPECT_TRUE(backend_.cancelled().empty());
}

TEST_F(RunWithoutHandleTest, ItFailsOnceItsHeardAgentFallsSilentForTheAgentTimeout) {
  const v1::Job job = Submit(MakeJob("fell_silent", dir_.path(), 0));
  const int64_t trial = StoreRunWithoutHandle(job);
  clock_.Advance(absl::Seconds(30));
  HearMaster(job, trial);
  clock_.Advance(absl::Seconds(59));
  Pass(job, 0);
  EXPECT_EQ(TrialOf(job, trial).state(), v1::Trial::ACTIVE);
  clock_.Advance(absl::Seconds(1));
  Pass(job, 0);
  const v1::Trial failed = TrialOf(job, trial);
  EXPECT_EQ(failed.state(), v1::Trial::FAILED);
  EXPECT_THAT(failed.status_reason(), HasSubstr(kSilentFor1m));
  EXPECT_THAT(failed.status_reason(), HasSubstr("its run's backend handle was never stored"));
  EXPECT_TRUE(backend_.launches().empty());
  // How its replica ended is not known.
  EXPECT_TRUE(Supervise(job));
  EXPECT_EQ(RunOf(job, trial).replicas(0).state(), v1::ReplicaStatus::LOST);
}

TEST_F(RunWithoutHandleTest, AfterARestartItKeepsItsGpusAndIsLaunchedAgainOnThem) {
  const v1::Job job = Submit(MakeJob("kept_gpus", dir_.path(), 0, /*gpus=*/2));
  const int64_t trial = StoreRunWithoutHandle(job, {2, 3});
  Restart();
  supervisor_->RestoreGrants({job});
  EXPECT_EQ(admission_->free_gpus(), 2);
  Pass(job, 0);
  EXPECT_TRUE(backend_.launches().empty());
  clock_.Advance(absl::Seconds(60));
  Pass(job, 0);
  ASSERT_EQ(backend_.launches().size(), 1u);
  EXPECT_EQ(backend_.launches()[0].trial_id, trial);
  EXPECT_THAT(backend_.launches()[0].replicas[0].gpus, ElementsAre(2, 3));
  EXPECT_EQ(admission_->free_gpus(), 2);
}

TEST_F(RunWithoutHandleTest, ItsGpusComeBackOnceItsTrialEnds) {
  const v1::Job job = Submit(MakeJob("gpus_back", dir_.path(), 0, /*gpus=*/2));
  const int64_t trial = StoreRunWithoutHandle(job, {0, 1});
  Restart();
  supervisor_->RestoreGrants({job});
  EXPECT_EQ(admission_->free_gpus(), 2);
  HearMaster(job, trial);
  Pass(job, 0);
  const v1::Measurement measurement = testing::AccuracyMeasurement(0.9);
  ASSERT_TRUE(studies_->AddMeasurements(job.study_name(), trial, {&measurement, 1}).ok());
  ASSERT_TRUE(Exit(job, trial, "master", 0).ok());
  EXPECT_TRUE(Supervise(job));
  EXPECT_EQ(admission_->free_gpus(), 4);
  EXPECT_TRUE(backend_.launches().empty());
}

// Its server died while starting its replicas: the master's agent speaks,
// the worker's never does. The trial fails once the agent timeout from the
// launch has passed, not at the worker's first silence, and not never.
TEST_F(RunWithoutHandleTest, AReplicaWhoseAgentIsNeverHeardFailsTheTrial) {
  const v1::Job job = Submit(MakeJob("half_started", dir_.path(), 1));
  const int64_t trial = StoreRunWithoutHandle(job);
  v1::TrialRun run = RunOf(job, trial);
  v1::ReplicaStatus& worker = *run.add_replicas();
  worker.set_role("worker");
  worker.set_state(v1::ReplicaStatus::PENDING);
  ASSERT_TRUE(storage_->PutTrialRun(job.job_id(), run).ok());
  for (int second = 0; second < 60; second += 10) {
    HearMaster(job, trial);
    Pass(job, 0);
    EXPECT_EQ(TrialOf(job, trial).state(), v1::Trial::ACTIVE) << "at " << second << " s";
    clock_.Advance(absl::Seconds(10));
  }
  HearMaster(job, trial);
  Pass(job, 0);
  const v1::Trial failed = TrialOf(job, trial);
  EXPECT_EQ(failed.state(), v1::Trial::FAILED);
  EXPECT_THAT(failed.status_reason(),
              HasSubstr("worker-0 never started: its agent was not heard within 1m of the "
                        "launch, while master-0's was"));
  EXPECT_TRUE(backend_.launches().empty());
}

TEST_F(RunWithoutHandleTest, ItIsKeptWhileTheStoreCannotSayWhenItsAgentsWereHeard) {
  const v1::Job job = Submit(MakeJob("unreadable", dir_.path(), 0));
  StoreRunWithoutHandle(job);
  sqlite3* database = nullptr;
  ASSERT_EQ(sqlite3_open((dir_.path() + "/vernier.db").c_str(), &database), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(database, "DROP TABLE agent_contacts", nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(database);
  clock_.Advance(absl::Minutes(5));
  Pass(job, 0);
  EXPECT_TRUE(backend_.launches().empty()) << "launched again, not knowing whether it runs";
  EXPECT_EQ(TrialOf(job, 1).state(), v1::Trial::ACTIVE);
}

TEST_F(RunWithoutHandleTest, ARunWhoseReplicaReportedItsExitIsNeverLaunchedAgain) {
  const v1::Job job = Submit(MakeJob("exit_first", dir_.path(), 0));
  const int64_t trial = StoreRunWithoutHandle(job);
  // A pass that read the trial still ACTIVE, and its run after the
  // master's exit report was written into it (the trial's outcome not yet).
  v1::TrialRun run = RunOf(job, trial);
  run.mutable_replicas(0)->set_state(v1::ReplicaStatus::EXITED);
  ASSERT_TRUE(storage_->PutTrialRun(job.job_id(), run).ok());
  clock_.Advance(absl::Minutes(5));
  Pass(job, 0);
  EXPECT_TRUE(backend_.launches().empty()) << "a run that reported its exit was launched again";
}

TEST_F(RunWithoutHandleTest, AnAgentHeardBeforeItsLaunchDoesNotCount) {
  const v1::Job job = Submit(MakeJob("heard_before", dir_.path(), 0));
  absl::StatusOr<SuggestResult> suggested = studies_->SuggestTrials(job.study_name(), 1, "");
  ASSERT_TRUE(suggested.ok()) << suggested.status();
  // An agent of the trial's earlier attempt, heard before this launch.
  HearMaster(job, 1);
  clock_.Advance(absl::Seconds(1));
  v1::TrialRun run;
  run.set_trial_id(1);
  run.set_attempt(1);
  *run.mutable_launch_time() = ToTimestamp(clock_.Now());
  v1::ReplicaStatus& master = *run.add_replicas();
  master.set_role("master");
  master.set_state(v1::ReplicaStatus::PENDING);
  ASSERT_TRUE(storage_->PutTrialRun(job.job_id(), run).ok());
  clock_.Advance(absl::Seconds(60));
  Pass(job, 0);
  EXPECT_EQ(backend_.launches().size(), 1u) << "an agent heard before the launch kept it";
}

TEST_F(RunWithoutHandleTest, WhatTheBackendFindsSubmittedForItIsTakenOverAndFollowed) {
  const v1::Job job = Submit(MakeJob("found", dir_.path(), 0, /*gpus=*/2));
  const int64_t trial = StoreRunWithoutHandle(job, {0, 1});
  Restart();
  supervisor_->RestoreGrants({job});
  // Queued in the cluster, say: no agent of it speaks yet.
  backend_.MarkSubmitted(trial, 0, "fake:elsewhere");
  backend_.SetReplica("fake:elsewhere", "master", 0, v1::ReplicaStatus::PENDING);
  Pass(job, 0);
  const v1::TrialRun taken = RunOf(job, trial);
  EXPECT_EQ(taken.backend_handle(), "fake:elsewhere");
  EXPECT_EQ(taken.replicas(0).state(), v1::ReplicaStatus::PENDING);
  EXPECT_THAT(taken.replicas(0).gpus(), ElementsAre(0, 1));
  // Past the agent timeout, still queued: neither launched again nor failed.
  clock_.Advance(absl::Minutes(5));
  Pass(job, 0);
  EXPECT_TRUE(backend_.launches().empty()) << "a queued run was launched a second time";
  EXPECT_EQ(TrialOf(job, trial).state(), v1::Trial::ACTIVE);
  EXPECT_EQ(admission_->free_gpus(), 2);
  // It is described through the backend now: its master's exit, without
  // its agent's report, fails the trial as for any run.
  backend_.SetReplica("fake:elsewhere", "master", 0, v1::ReplicaStatus::EXITED, 3);
  Pass(job, 0);
  clock_.Advance(absl::Seconds(10));
  Pass(job, 0);
  const v1::Trial failed = TrialOf(job, trial);
  EXPECT_EQ(failed.state(), v1::Trial::FAILED);
  EXPECT_THAT(failed.status_reason(), HasSubstr("exited with code 3"));
  EXPECT_EQ(RunOf(job, trial).replicas(0).state(), v1::ReplicaStatus::EXITED);
  EXPECT_TRUE(Supervise(job));
  EXPECT_EQ(admission_->free_gpus(), 4);
  EXPECT_TRUE(backend_.launches().empty());
}

TEST_F(RunWithoutHandleTest, AFoundRunShowsItsMastersExitAsItsAgentReportedIt) {
  const v1::Job job = Submit(MakeJob("found_exit", dir_.path(), 0));
  const int64_t trial = StoreRunTakenOver(job);
  const v1::Measurement measurement = testing::AccuracyMeasurement(0.9);
  ASSERT_TRUE(studies_->AddMeasurements(job.study_name(), trial, {&measurement, 1}).ok());
  ASSERT_TRUE(Exit(job, trial, "master", 0).ok());
  EXPECT_EQ(TrialOf(job, trial).state(), v1::Trial::SUCCEEDED);
  // Not its parent, the backend sees the process gone, no more.
  backend_.SetReplica("fake:elsewhere", "master", 0, v1::ReplicaStatus::LOST);
  EXPECT_TRUE(Supervise(job));
  const v1::ReplicaStatus master = RunOf(job, trial).replicas(0);
  EXPECT_EQ(master.state(), v1::ReplicaStatus::EXITED);
  EXPECT_EQ(master.exit_code(), 0);
  EXPECT_TRUE(backend_.launches().empty());
}

TEST_F(RunWithoutHandleTest, ACancelledTrialsFoundRunIsCancelledThroughTheBackend) {
  const v1::Job job = Submit(MakeJob("found_cancel", dir_.path(), 0));
  const int64_t trial = StoreRunTakenOver(job);
  EXPECT_EQ(RunOf(job, trial).replicas(0).state(), v1::ReplicaStatus::RUNNING);
  ASSERT_TRUE(studies_->FailTrial(job.study_name(), trial, "stopped by hand").ok());
  EXPECT_FALSE(Supervise(job));
  WaitUntilEnded(job, trial);
  EXPECT_THAT(backend_.cancelled(), ElementsAre("fake:elsewhere"));
}

TEST_F(RunWithoutHandleTest, ItIsKeptWhileTheBackendCannotLookForWhatWasSubmitted) {
  const v1::Job job = Submit(MakeJob("cannot_look", dir_.path(), 0));
  const int64_t trial = StoreRunWithoutHandle(job);
  backend_.FailFindSubmitted(absl::UnavailableError("slurmctld is away"));
  clock_.Advance(absl::Minutes(5));
  Pass(job, 0);
  EXPECT_TRUE(backend_.launches().empty()) << "launched again, not knowing whether it was queued";
  EXPECT_EQ(TrialOf(job, trial).state(), v1::Trial::ACTIVE);
  // Once it can look and finds nothing, the agent timeout, long past, decides.
  backend_.FailFindSubmitted(absl::OkStatus());
  Pass(job, 0);
  EXPECT_EQ(backend_.launches().size(), 1u);
}

TEST_F(RunWithoutHandleTest, AnotherAttemptsSubmissionIsNotTakenForIt) {
  const v1::Job job = Submit(MakeJob("other_attempt", dir_.path(), 0));
  const int64_t trial = StoreRunWithoutHandle(job);
  backend_.MarkSubmitted(trial, 1, "fake:later_attempt");
  Pass(job, 0);
  EXPECT_EQ(RunOf(job, trial).backend_handle(), "");
  clock_.Advance(absl::Seconds(60));
  Pass(job, 0);
  EXPECT_EQ(backend_.launches().size(), 1u);
}

// A server stopped between storing a trial's run and submitting it, past
// its job's lease: the server that took the job over launched the trial
// again (no agent of the first launch was heard). Resumed, the stopped
// server submits all the same; its run cannot be stored (the lease is
// lost), and its launch, superseded, is ended.
TEST_F(RunWithoutHandleTest, ALaunchSupersededWhileItsServerWasStoppedIsEnded) {
  const v1::Job job = Submit(MakeJob("superseded", dir_.path(), 0));
  const int64_t token = Lease(job, "one");
  v1::TrialRun again;
  backend_.OnSubmit([&] {
    backend_.OnSubmit(nullptr);
    storage::ScopedWriteFence by_two({job.job_id(), "two", HandOver(job)});
    again = RunOf(job, 1);
    again.mutable_launch_time()->set_seconds(again.launch_time().seconds() + 61);
    ASSERT_TRUE(storage_->PutTrialRun(job.job_id(), again).ok());
  });
  EXPECT_EQ(StartAsServerOne(job, token).code(), absl::StatusCode::kAborted);
  EXPECT_THAT(backend_.cancelled(), ElementsAre("fake:1"));
  EXPECT_EQ(RunOf(job, 1).launch_time().seconds(), again.launch_time().seconds())
      << "the other server's launch is the trial's";
}

// The same stop, the job taken over but the trial not launched again (yet):
// the stopped server's launch is left to run, and the server driving the
// job takes it over.
TEST_F(RunWithoutHandleTest, ALaunchWhoseRunCouldNotBeStoredIsTakenOverNotEnded) {
  const v1::Job job = Submit(MakeJob("not_superseded", dir_.path(), 0));
  const int64_t token = Lease(job, "one");
  backend_.OnSubmit([&] {
    backend_.OnSubmit(nullptr);
    HandOver(job);
  });
  EXPECT_EQ(StartAsServerOne(job, token).code(), absl::StatusCode::kAborted);
  EXPECT_TRUE(backend_.cancelled().empty());
  EXPECT_EQ(RunOf(job, 1).backend_handle(), "");
  // The server driving the job now.
  Restart();
  Pass(job, 0);
  EXPECT_EQ(RunOf(job, 1).backend_handle(), "fake:1");
  clock_.Advance(absl::Minutes(5));
  Pass(job, 0);
  EXPECT_EQ(backend_.launches().size(), 1u) << "launched a second time";
}

TEST_F(TrialRunSupervisorTest, AGangWaitsForGpusBeforeItsTrialIsSuggested) {
  // Each trial takes all 4 GPUs: of two slots, one trial runs, one gang waits.
  const v1::Job job = Submit(MakeJob("gangs", dir_.path(), 1, /*gpus=*/2));
  EXPECT_EQ(Start(job, 2).launched, 1);
  EXPECT_EQ(supervisor_->WaitingGangs(job.job_id()), 1);
  Load(job);
  EXPECT_EQ(trials_.size(), 1u);

  // The first trial ends; once its replicas are gone the gang is granted.
  backend_.SetReplica("fake:1", "master", 0, v1::ReplicaStatus::EXITED, 0);
  backend_.SetReplica("fake:1", "worker", 0, v1::ReplicaStatus::EXITED, 0);
  ASSERT_TRUE(studies_->FailTrial(job.study_name(), 1, "done").ok());
  EXPECT_EQ(Start(job, 0).launched, 0);
  EXPECT_TRUE(Supervise(job));
  EXPECT_EQ(Start(job, 0).launched, 1);
  EXPECT_EQ(supervisor_->WaitingGangs(job.job_id()), 0);
  EXPECT_THAT(StateOf(job, 2), Optional(TrialAttemptState::kRunning));

  supervisor_->ForgetJob(job.job_id());
  EXPECT_EQ(StateOf(job, 2), std::nullopt);
  EXPECT_EQ(admission_->free_gpus(), 4);
}

TEST_F(TrialRunSupervisorTest, AMasterThatSucceedsCompletesTheTrialWithItsLastResult) {
  const v1::Job job = Submit(MakeJob("succeeds", dir_.path(), 0));
  Start(job, 1);
  const v1::Measurement measurement = testing::AccuracyMeasurement(0.9);
  ASSERT_TRUE(studies_->AddMeasurements(job.study_name(), 1, {&measurement, 1}).ok());
  ASSERT_TRUE(Exit(job, 1, "master", 0).ok());
  EXPECT_EQ(TrialOf(job, 1).state(), v1::Trial::SUCCEEDED);
}

TEST_F(TrialRunSupervisorTest, AMasterThatExitsWithoutTheObjectiveFailsTheTrial) {
  const v1::Job job = Submit(MakeJob("noresult", dir_.path(), 0));
  Start(job, 1);
  ASSERT_TRUE(Exit(job, 1, "master", 0).ok());
  const v1::Trial trial = TrialOf(job, 1);
  EXPECT_EQ(trial.state(), v1::Trial::FAILED);
  EXPECT_THAT(trial.status_reason(), HasSubstr("never reported the objective metric"));
  EXPECT_THAT(trial.status_reason(), HasSubstr("it reported no metric at all"));
  EXPECT_THAT(trial.status_reason(), HasSubstr("metricRegex"));
}

TEST_F(TrialRunSupervisorTest, AMissingObjectiveNamesTheMetricsThatWereReported) {
  const v1::Job job = Submit(MakeJob("othernames", dir_.path(), 0));
  Start(job, 1);
  v1::Measurement measurement;
  measurement.set_step(1);
  for (const char* name : {"val_accuracy", "loss"}) {
    v1::Metric* metric = measurement.add_metrics();
    metric->set_metric_id(name);
    metric->set_value(0.5);
  }
  ASSERT_TRUE(studies_->AddMeasurements(job.study_name(), 1, {&measurement, 1}).ok());
  ASSERT_TRUE(Exit(job, 1, "master", 0).ok());
  const v1::Trial trial = TrialOf(job, 1);
  EXPECT_EQ(trial.state(), v1::Trial::FAILED);
  EXPECT_THAT(trial.status_reason(),
              HasSubstr("never reported the objective metric \"accuracy\"; the metrics it "
                        "reported: loss, val_accuracy"));
  EXPECT_THAT(trial.status_reason(), HasSubstr("metricRegex"));
}

TEST_F(TrialRunSupervisorTest, AMissingObjectiveWithAMetricRegexPointsAtThePattern) {
  v1::Job spec = MakeJob("withregex", dir_.path(), 0);
  spec.mutable_training_input()->mutable_hyperparameters()->set_metric_regex(
      "acc=(?P<accuracy>\\S+)");
  const v1::Job job = Submit(spec);
  Start(job, 1);
  ASSERT_TRUE(Exit(job, 1, "master", 0).ok());
  EXPECT_THAT(TrialOf(job, 1).status_reason(),
              HasSubstr("the job's metricRegex \"acc=(?P<accuracy>\\S+)\" found no "
                        "\"accuracy\""));
}

TEST_F(TrialRunSupervisorTest, AnExitReportOfAStudyWithoutAJobIsNotFound) {
  v1::ReportExitRequest report;
  report.mutable_replica()->set_study_name("nojob");
  report.mutable_replica()->set_trial_id(1);
  report.mutable_replica()->set_role("master");
  EXPECT_EQ(supervisor_->OnReplicaExit(report).code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace vernier::tuner
