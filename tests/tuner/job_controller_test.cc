// The job controller over the real store, driven by Tick(): with the real
// LocalBackend where no agent has to run, and with a fake backend for the
// job's state machine.
#include "tuner/job_controller.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "scheduler/local/local_admission.h"
#include "scheduler/local/local_backend.h"
#include "tests/support/fake_backend.h"
#include "tests/support/fake_clock.h"
#include "tests/support/job_client.h"
#include "tests/support/subprocess.h"
#include "tests/support/tuning_job.h"
#include "tuner/packaged_trainer.h"
#include "tuner/storage/sqlite/sqlite_storage.h"

namespace vernier::tuner {
namespace {

using ::testing::HasSubstr;

// A CUSTOM job whose trials run a master and `workers` workers, 1 GPU each.
v1::Job GpuJob(const std::string& job_id, const std::string& dir, int workers, int max_trials) {
  v1::Job job = testing::TuningJob(job_id, dir, max_trials);
  v1::TrainingInput& input = *job.mutable_training_input();
  input.set_scale_tier("CUSTOM");
  input.set_master_type("n1-standard-4");
  input.mutable_master_config()->mutable_accelerator_config()->set_count(1);
  input.mutable_master_config()->mutable_accelerator_config()->set_type("NVIDIA_TESLA_T4");
  input.set_worker_type("n1-standard-4");
  input.set_worker_count(workers);
  input.mutable_worker_config()->mutable_accelerator_config()->set_count(1);
  input.mutable_worker_config()->mutable_accelerator_config()->set_type("NVIDIA_TESLA_T4");
  input.mutable_hyperparameters()->set_max_failed_trials(max_trials + 1);
  return job;
}

class JobControllerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<storage::SqliteStorage>> opened =
        storage::SqliteStorage::Open(dir_.path() + "/vernier.db");
    ASSERT_TRUE(opened.ok()) << opened.status();
    storage_ = std::move(*opened);
    studies_ = std::make_unique<StudyManager>(*storage_, SystemClock());
  }

  std::unique_ptr<JobController> Controller(JobControllerOptions options,
                                            scheduler::PortRange ports = {}) {
    admission_ = std::make_unique<scheduler::LocalAdmission>(std::vector<int>{0, 1, 2, 3}, ports,
                                                             [](int) { return true; });
    return std::make_unique<JobController>(*storage_, *studies_, backend_, *admission_,
                                           std::move(options), SystemClock());
  }

  testing::TempDir dir_;
  std::unique_ptr<storage::SqliteStorage> storage_;
  std::unique_ptr<StudyManager> studies_;
  scheduler::LocalBackend backend_;
  std::unique_ptr<scheduler::LocalAdmission> admission_;
};

TEST_F(JobControllerTest, ATrialThatCannotStartGivesItsGpusToTheNext) {
  JobControllerOptions options;
  options.trials.launch.agent_path = dir_.path() + "/no-such-agent";
  std::unique_ptr<JobController> controller = Controller(options);
  ASSERT_TRUE(controller->SubmitJob(GpuJob("unstartable", dir_.path(), 3, 2)).ok());
  for (int tick = 0; tick < 6; ++tick) controller->Tick();

  absl::StatusOr<v1::GetJobResponse> job = controller->GetJob("unstartable");
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->job().state(), v1::Job::FAILED) << job->DebugString();
  EXPECT_EQ(job->trial_counts().failed(), 2);
  // Each trial was granted all 4 GPUs: the first gave them back when its
  // launch failed.
  ASSERT_EQ(job->trial_runs_size(), 2);
  for (const v1::TrialRun& run : job->trial_runs()) {
    std::set<int> gpus;
    for (const v1::ReplicaStatus& replica : run.replicas()) {
      EXPECT_EQ(replica.state(), v1::ReplicaStatus::LOST);
      gpus.insert(replica.gpus().begin(), replica.gpus().end());
    }
    EXPECT_EQ(gpus, (std::set<int>{0, 1, 2, 3})) << run.DebugString();
  }
}

TEST_F(JobControllerTest, ATrialFailsWhenTheReplicaPortsRunOut) {
  JobControllerOptions options;
  options.trials.launch.agent_path = "/bin/true";
  std::unique_ptr<JobController> controller = Controller(options, {30000, 30001});
  ASSERT_TRUE(controller->SubmitJob(GpuJob("portless", dir_.path(), 3, 1)).ok());
  for (int tick = 0; tick < 4; ++tick) controller->Tick();
  absl::StatusOr<std::vector<v1::Trial>> trials = [&]() -> absl::StatusOr<std::vector<v1::Trial>> {
    absl::StatusOr<storage::Page<v1::Trial>> page = storage_->ListTrials("portless", {});
    if (!page.ok()) return page.status();
    return page->items;
  }();
  ASSERT_TRUE(trials.ok()) << trials.status();
  ASSERT_EQ(trials->size(), 1u);
  EXPECT_EQ((*trials)[0].state(), v1::Trial::FAILED);
  EXPECT_THAT((*trials)[0].status_reason(), HasSubstr("needs 4 ports but only 2 of 30000-30001"));
}

// The controller over a fake backend and clock: the job's state machine,
// with trials whose outcomes the test reports as agents would.
class JobStateMachineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<storage::SqliteStorage>> opened =
        storage::SqliteStorage::Open(dir_.path() + "/vernier.db");
    ASSERT_TRUE(opened.ok()) << opened.status();
    storage_ = std::move(*opened);
    studies_ = std::make_unique<StudyManager>(*storage_, clock_.AsClock());
    JobControllerOptions options;
    options.trials.launch.agent_path = "/opt/vernier-agent";
    options.trials.launch.grace_period = std::chrono::milliseconds(0);
    controller_ = std::make_unique<JobController>(*storage_, *studies_, backend_, admission_,
                                                  options, clock_.AsClock());
  }

  // A one-replica job of `max_trials` trials, `parallel` at a time.
  v1::Job Job(const std::string& job_id, int max_trials, int parallel, int max_failed = 100) {
    v1::Job job = testing::TuningJob(job_id, dir_.path(), max_trials, parallel);
    job.mutable_training_input()->mutable_hyperparameters()->set_max_failed_trials(max_failed);
    return job;
  }

  // A one-trial job "packaged" whose trainer is the setuptools project
  // helperlib (its module prints accuracy=0.5), installed by the submitter's
  // python3: a script `python3_script` first on the job's PATH.
  v1::Job PackagedJob(const std::string& python3_script) {
    const std::string bin = dir_.path() + "/bin";
    testing::WriteFile(bin + "/python3", python3_script);
    std::filesystem::permissions(bin + "/python3", std::filesystem::perms::owner_all);
    testing::WriteFile(dir_.path() + "/helper/setup.py",
                       "from setuptools import setup\n"
                       "setup(name='helperlib', version='1.0', py_modules=['helperlib'])\n");
    testing::WriteFile(dir_.path() + "/helper/helperlib.py", "print('accuracy=0.5')\n");
    v1::Job packaged = Job("packaged", 1, 1);
    packaged.clear_command();
    packaged.mutable_training_input()->set_python_module("helperlib");
    packaged.mutable_training_input()->add_package_uris(dir_.path() + "/helper");
    (*packaged.mutable_environment())["PATH"] = bin + ":/usr/bin:/bin";
    return packaged;
  }

  v1::GetJobResponse Get(const std::string& job_id) {
    absl::StatusOr<v1::GetJobResponse> job = controller_->GetJob(job_id);
    EXPECT_TRUE(job.ok()) << job.status();
    return job.value_or(v1::GetJobResponse());
  }

  // The trial's master reports `accuracy` and exits 0; its process is gone.
  void Succeed(const std::string& job_id, int64_t trial_id, double accuracy) {
    SucceedVia(*controller_, job_id, trial_id, accuracy);
  }

  // Succeed, reported to `controller`.
  void SucceedVia(JobController& controller, const std::string& job_id, int64_t trial_id,
                  double accuracy) {
    const v1::Measurement measurement = testing::AccuracyMeasurement(accuracy);
    ASSERT_TRUE(studies_->AddMeasurements(job_id, trial_id, {&measurement, 1}).ok());
    v1::ReportExitRequest report;
    report.mutable_replica()->set_study_name(job_id);
    report.mutable_replica()->set_trial_id(trial_id);
    report.mutable_replica()->set_role("master");
    ASSERT_TRUE(controller.OnReplicaExit(report).ok());
    backend_.SetReplica(backend_.HandleOf(trial_id), "master", 0, v1::ReplicaStatus::EXITED);
  }

  // Ticks until the job is in `state` (cancels end replicas in the
  // background).
  void TickUntil(const std::string& job_id, v1::Job::State state) {
    for (int tick = 0; tick < 10000; ++tick) {
      controller_->Tick();
      if (Get(job_id).job().state() == state) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ADD_FAILURE() << job_id << " never became " << v1::Job::State_Name(state) << ": "
                  << Get(job_id).DebugString();
  }

  testing::TempDir dir_;
  testing::FakeClock clock_;
  testing::FakeBackend backend_;
  scheduler::LocalAdmission admission_{{}, {20000, 20099}, [](int) { return true; }};
  std::unique_ptr<storage::SqliteStorage> storage_;
  std::unique_ptr<StudyManager> studies_;
  std::unique_ptr<JobController> controller_;
};

TEST_F(JobStateMachineTest, AJobRunsItsTrialsInParallelAndSucceedsWithTheBest) {
  ASSERT_TRUE(controller_->SubmitJob(Job("succeeds", 3, 2)).ok());
  EXPECT_EQ(Get("succeeds").job().state(), v1::Job::QUEUED);
  controller_->Tick();
  EXPECT_EQ(Get("succeeds").job().state(), v1::Job::RUNNING);
  EXPECT_EQ(backend_.launches().size(), 2u);
  Succeed("succeeds", 1, 0.5);
  controller_->Tick();
  // A free slot gets the third trial; max_trials=3 gives no fourth.
  EXPECT_EQ(backend_.launches().size(), 3u);
  Succeed("succeeds", 2, 0.9);
  Succeed("succeeds", 3, 0.7);
  controller_->Tick();
  const v1::GetJobResponse job = Get("succeeds");
  EXPECT_EQ(job.job().state(), v1::Job::SUCCEEDED) << job.DebugString();
  EXPECT_EQ(job.trial_counts().succeeded(), 3);
  ASSERT_GT(job.job().training_output().trials_size(), 0);
  EXPECT_EQ(job.job().training_output().trials(0).trial_id(), "2");
  EXPECT_EQ(backend_.launches().size(), 3u);
  EXPECT_EQ(storage_->GetStudy("succeeds")->state(), v1::Study::COMPLETED);
}

TEST_F(JobStateMachineTest, MaxFailedTrialsEndsTheJob) {
  backend_.FailSubmits(absl::UnavailableError("no nodes"));
  ASSERT_TRUE(controller_->SubmitJob(Job("failing", 5, 1, /*max_failed=*/2)).ok());
  controller_->Tick();
  controller_->Tick();
  EXPECT_EQ(Get("failing").job().state(), v1::Job::RUNNING);
  controller_->Tick();
  v1::GetJobResponse job = Get("failing");
  EXPECT_EQ(job.job().state(), v1::Job::CANCELLING);
  EXPECT_EQ(job.job().error_message(),
            "2 trials failed (maxFailedTrials=2); the last: trial 2: could not start the trial: "
            "no nodes");
  controller_->Tick();
  job = Get("failing");
  EXPECT_EQ(job.job().state(), v1::Job::FAILED);
  EXPECT_EQ(job.trial_counts().failed(), 2);
  EXPECT_EQ(backend_.launches().size(), 2u);
  // Not COMPLETED: its job failed.
  EXPECT_EQ(storage_->GetStudy("failing")->state(), v1::Study::INACTIVE);
}

TEST_F(JobStateMachineTest, ACancelledJobEndsItsRunningTrials) {
  ASSERT_TRUE(controller_->SubmitJob(Job("cancelled", 4, 2)).ok());
  controller_->Tick();
  ASSERT_EQ(backend_.launches().size(), 2u);
  absl::StatusOr<v1::Job> cancelling = controller_->CancelJob("cancelled");
  ASSERT_TRUE(cancelling.ok()) << cancelling.status();
  EXPECT_EQ(cancelling->state(), v1::Job::CANCELLING);
  TickUntil("cancelled", v1::Job::CANCELLED);
  const v1::GetJobResponse job = Get("cancelled");
  EXPECT_EQ(job.trial_counts().failed(), 0);
  EXPECT_EQ(job.trial_counts().cancelled(), 2);
  // Both runs were ended (a pass that read the trials before a cancel
  // finished may end one again, which ends nothing more).
  const std::vector<std::string> cancelled = backend_.cancelled();
  EXPECT_EQ(std::set<std::string>(cancelled.begin(), cancelled.end()),
            (std::set<std::string>{"fake:1", "fake:2"}));
  EXPECT_EQ(backend_.launches().size(), 2u);
  EXPECT_EQ(controller_->CancelJob("cancelled").status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(storage_->GetStudy("cancelled")->state(), v1::Study::INACTIVE);
}

// A packaged trainer's install runs beside the controller's passes: another
// job's trials start, and its own job stays PREPARING, while pip works.
TEST_F(JobStateMachineTest, AJobInstallingItsPackagesHoldsUpNoOtherJob) {
  // The submitter's python3, as pip, waits for `release` (20 s at most: an
  // install that held up the pass would fail the job) before it runs, so
  // the install lasts until the test lets it go; what it runs at submit
  // (reading the packages' requirements) runs at once.
  const std::string release = dir_.path() + "/release";
  const v1::Job packaged =
      PackagedJob("#!/bin/sh\ncase \"$*\" in \"-m pip \"*)\nwaited=0\nwhile [ ! -e " + release +
                  " ]; do\n  [ $waited -ge 400 ] && exit 3\n  sleep 0.05; waited=$((waited + 1))\n"
                  "done;;\nesac\nexec /usr/bin/python3 \"$@\"\n");
  ASSERT_TRUE(controller_->SubmitJob(packaged).ok());
  ASSERT_TRUE(controller_->SubmitJob(Job("plain", 1, 1)).ok());

  controller_->Tick();
  controller_->Tick();
  EXPECT_EQ(Get("packaged").job().state(), v1::Job::PREPARING);
  EXPECT_EQ(Get("plain").job().state(), v1::Job::RUNNING);
  ASSERT_EQ(backend_.launches().size(), 1u);
  Succeed("plain", 1, 0.5);
  controller_->Tick();
  EXPECT_EQ(Get("plain").job().state(), v1::Job::SUCCEEDED);
  EXPECT_EQ(Get("packaged").job().state(), v1::Job::PREPARING);

  testing::WriteFile(release, "");
  TickUntil("packaged", v1::Job::RUNNING);
  const v1::Job job = Get("packaged").job();
  EXPECT_TRUE(std::filesystem::exists(PackagedTrainer::PackagesDir(job) + "/helperlib.py"))
      << PackagedTrainer::PackagesDir(job);
  EXPECT_EQ(backend_.launches().size(), 2u);
}

// A server stopping while a packaged trainer's install runs kills the
// install instead of waiting for it (up to its 10-minute timeout); the job
// stays PREPARING, to install again on the next server.
TEST_F(JobStateMachineTest, StoppingKillsARunningInstallAndLeavesTheJobPreparing) {
  // The submitter's python3 says it started, then waits for nothing for up
  // to 60 s and leaves a mark if it was let run that long.
  const std::string started = dir_.path() + "/started";
  const std::string gave_up = dir_.path() + "/gave-up";
  const v1::Job packaged = PackagedJob(
      "#!/bin/sh\ncase \"$*\" in \"-m pip \"*) ;; *) exec /usr/bin/python3 \"$@\";; esac\n: > " +
      started +
      "\nwaited=0\nwhile [ $waited -lt 1200 ]; do\n"
      "  sleep 0.05; waited=$((waited + 1))\ndone\n: > " +
      gave_up + "\nexit 3\n");
  ASSERT_TRUE(controller_->SubmitJob(packaged).ok());
  controller_->Tick();
  for (int i = 0; i < 400 && !std::filesystem::exists(started); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_TRUE(std::filesystem::exists(started)) << "the install never started";

  controller_->Stop();
  EXPECT_FALSE(std::filesystem::exists(gave_up)) << "Stop waited for the install to end";
  EXPECT_EQ(Get("packaged").job().state(), v1::Job::PREPARING);
  EXPECT_TRUE(backend_.launches().empty());
}

TEST_F(JobStateMachineTest, AJobWithoutAnyResultFails) {
  ASSERT_TRUE(controller_->SubmitJob(Job("noresult", 1, 1)).ok());
  controller_->Tick();
  v1::ReportExitRequest report;
  report.mutable_replica()->set_study_name("noresult");
  report.mutable_replica()->set_trial_id(1);
  report.mutable_replica()->set_role("master");
  ASSERT_TRUE(controller_->OnReplicaExit(report).ok());
  backend_.SetReplica(backend_.HandleOf(1), "master", 0, v1::ReplicaStatus::EXITED);
  controller_->Tick();
  const v1::GetJobResponse job = Get("noresult");
  EXPECT_EQ(job.job().state(), v1::Job::FAILED);
  EXPECT_EQ(job.job().error_message(), "no trial reported the objective metric \"accuracy\"");
}

TEST_F(JobStateMachineTest, AnExitReportFromAReplicaTheTrialDoesNotHaveIsRefused) {
  ASSERT_TRUE(controller_->SubmitJob(Job("forged", 1, 1)).ok());
  controller_->Tick();
  ASSERT_EQ(backend_.launches().size(), 1u);
  v1::ReportExitRequest report;
  report.mutable_replica()->set_study_name("forged");
  report.mutable_replica()->set_trial_id(1);
  report.mutable_replica()->set_role("worker");
  report.mutable_replica()->set_index(7);
  report.set_exit_code(1);
  absl::Status refused = controller_->OnReplicaExit(report);
  EXPECT_EQ(refused.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(refused.message(),
              HasSubstr("job \"forged\" trial 1 has no replica worker-7 (its replicas: master-0)"));
  // A trial that was never launched, and an attempt that is not the current one.
  report.mutable_replica()->set_role("master");
  report.mutable_replica()->set_index(0);
  report.mutable_replica()->set_trial_id(9);
  EXPECT_EQ(controller_->OnReplicaExit(report).code(), absl::StatusCode::kNotFound);
  report.mutable_replica()->set_trial_id(1);
  report.mutable_replica()->set_attempt(2);
  refused = controller_->OnReplicaExit(report);
  EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(refused.message(), HasSubstr("runs attempt 0, not attempt 2"));
  // None of them touched the trial or the job.
  controller_->Tick();
  const v1::GetJobResponse job = Get("forged");
  EXPECT_EQ(job.job().state(), v1::Job::RUNNING);
  EXPECT_EQ(job.trial_counts().active(), 1);
  EXPECT_EQ(backend_.launches().size(), 1u);
}

// Two controllers over one store, as two servers sharing it: each job is
// driven by one of them; the other launches nothing of it and passes what
// its agents tell it on through the store; when the first stops, the second
// takes the job over with its running trials.
TEST_F(JobStateMachineTest, ASecondServerLeavesAJobToTheOneThatDrivesItAndTakesItOver) {
  JobControllerOptions options;
  options.trials.launch.agent_path = "/opt/vernier-agent";
  options.trials.launch.grace_period = std::chrono::milliseconds(0);
  options.server_id = "second";
  scheduler::LocalAdmission second_admission{{}, {20100, 20199}, [](int) { return true; }};
  auto second = std::make_unique<JobController>(*storage_, *studies_, backend_, second_admission,
                                                options, clock_.AsClock());
  ASSERT_TRUE(second->SubmitJob(Job("shared", 3, 2)).ok());
  controller_->Tick();
  EXPECT_TRUE(controller_->Drives("shared"));
  ASSERT_EQ(backend_.launches().size(), 2u);
  for (int tick = 0; tick < 3; ++tick) second->Tick();
  EXPECT_FALSE(second->Drives("shared"));
  EXPECT_EQ(backend_.launches().size(), 2u);

  // Trial 1's agent reports to the second server: kept for the first.
  const v1::Measurement measurement = testing::AccuracyMeasurement(0.5);
  ASSERT_TRUE(studies_->AddMeasurements("shared", 1, {&measurement, 1}).ok());
  v1::ReportExitRequest report;
  report.mutable_replica()->set_study_name("shared");
  report.mutable_replica()->set_trial_id(1);
  report.mutable_replica()->set_role("master");
  ASSERT_TRUE(second->OnReplicaExit(report).ok());
  backend_.SetReplica(backend_.HandleOf(1), "master", 0, v1::ReplicaStatus::EXITED);
  EXPECT_EQ(Get("shared").trial_counts().succeeded(), 0);
  controller_->Tick();
  EXPECT_EQ(Get("shared").trial_counts().succeeded(), 1);
  EXPECT_EQ(backend_.launches().size(), 3u);
  // A heartbeat the second server hears is seen by the first.
  second->OnAgentContact(report.replica());
  absl::StatusOr<std::optional<absl::Duration>> heard =
      storage_->AgentContactAge("shared", 1, "master-0");
  ASSERT_TRUE(heard.ok()) << heard.status();
  EXPECT_TRUE(heard->has_value());

  // The first server stops (its trials keep running): the second drives the
  // job from its next pass, relaunching nothing.
  controller_->Stop();
  controller_.reset();
  second->Tick();
  EXPECT_TRUE(second->Drives("shared"));
  EXPECT_EQ(backend_.launches().size(), 3u);
  SucceedVia(*second, "shared", 2, 0.9);
  SucceedVia(*second, "shared", 3, 0.7);
  second->Tick();
  absl::StatusOr<v1::GetJobResponse> ended = second->GetJob("shared");
  ASSERT_TRUE(ended.ok()) << ended.status();
  const v1::GetJobResponse& job = *ended;
  EXPECT_EQ(job.job().state(), v1::Job::SUCCEEDED) << job.DebugString();
  EXPECT_EQ(job.trial_counts().succeeded(), 3);
  EXPECT_EQ(backend_.launches().size(), 3u);
  second->Stop();
}

}  // namespace
}  // namespace vernier::tuner
