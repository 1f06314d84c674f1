// The job controller over the real store and the real LocalBackend, driven
// by Tick(): paths where no agent has to run.
#include "tuner/job_controller.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "scheduler/local/local_backend.h"
#include "tests/support/subprocess.h"
#include "tuner/storage/sqlite/sqlite_storage.h"

namespace vernier::tuner {
namespace {

using ::testing::HasSubstr;

// A CUSTOM job whose trials run a master and `workers` workers, 1 GPU each.
v1::Job GpuJob(const std::string& job_id, const std::string& dir, int workers, int max_trials) {
  v1::Job job;
  job.set_job_id(job_id);
  job.set_job_dir(dir + "/" + job_id);
  job.add_command("/bin/true");
  v1::TrainingInput& input = *job.mutable_training_input();
  input.set_scale_tier("CUSTOM");
  input.set_master_type("n1-standard-4");
  input.mutable_master_config()->mutable_accelerator_config()->set_count(1);
  input.mutable_master_config()->mutable_accelerator_config()->set_type("NVIDIA_TESLA_T4");
  input.set_worker_type("n1-standard-4");
  input.set_worker_count(workers);
  input.mutable_worker_config()->mutable_accelerator_config()->set_count(1);
  input.mutable_worker_config()->mutable_accelerator_config()->set_type("NVIDIA_TESLA_T4");
  v1::HyperparameterSpec& hyperparameters = *input.mutable_hyperparameters();
  hyperparameters.set_goal(v1::MetricSpec::MAXIMIZE);
  hyperparameters.set_hyperparameter_metric_tag("accuracy");
  hyperparameters.set_max_trials(max_trials);
  hyperparameters.set_max_parallel_trials(1);
  hyperparameters.set_max_failed_trials(max_trials + 1);
  hyperparameters.set_algorithm(v1::RANDOM_SEARCH);
  v1::ParameterSpec& lr = *hyperparameters.add_params();
  lr.set_parameter_name("lr");
  lr.set_type(v1::ParameterSpec::DOUBLE);
  lr.set_min_value(0.01);
  lr.set_max_value(0.1);
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

  std::unique_ptr<JobController> Controller(JobControllerOptions options) {
    options.gpus = {0, 1, 2, 3};
    options.port_usable = [](int) { return true; };
    return std::make_unique<JobController>(*storage_, *studies_, backend_, std::move(options),
                                           SystemClock());
  }

  testing::TempDir dir_;
  std::unique_ptr<storage::SqliteStorage> storage_;
  std::unique_ptr<StudyManager> studies_;
  scheduler::LocalBackend backend_;
};

TEST_F(JobControllerTest, ATrialThatCannotStartGivesItsGpusToTheNext) {
  JobControllerOptions options;
  options.launch.agent_path = dir_.path() + "/no-such-agent";
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
  options.launch.agent_path = "/bin/true";
  options.replica_ports = {30000, 30001};
  std::unique_ptr<JobController> controller = Controller(options);
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

}  // namespace
}  // namespace vernier::tuner
