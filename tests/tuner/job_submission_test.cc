// Job submission over a real store: checks, dry runs and resumed jobs.
#include "tuner/job_submission.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <system_error>

#include "absl/strings/match.h"
#include "scheduler/local/local_admission.h"
#include "tests/support/fake_backend.h"
#include "tests/support/fake_clock.h"
#include "tests/support/subprocess.h"
#include "tests/support/tuning_job.h"
#include "tuner/package_snapshot.h"
#include "tuner/storage/sqlite/sqlite_storage.h"

namespace vernier::tuner {
namespace {

using ::testing::HasSubstr;

v1::Job MakeJob(const std::string& job_id, const std::string& dir) {
  return testing::TuningJob(job_id, dir, /*max_trials=*/3);
}

class JobSubmissionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<storage::SqliteStorage>> opened =
        storage::SqliteStorage::Open(dir_.path() + "/vernier.db");
    ASSERT_TRUE(opened.ok()) << opened.status();
    storage_ = std::move(*opened);
    studies_ = std::make_unique<StudyManager>(*storage_, clock_.AsClock());
    JobSubmissionOptions options;
    options.default_job_root = dir_.path() + "/jobs";
    submission_ = std::make_unique<JobSubmission>(*storage_, *studies_, backend_, admission_,
                                                  options, clock_.AsClock());
  }

  std::vector<v1::Trial> Trials(const std::string& study) {
    absl::StatusOr<storage::Page<v1::Trial>> page = storage_->ListTrials(study, {});
    EXPECT_TRUE(page.ok()) << page.status();
    return page.ok() ? page->items : std::vector<v1::Trial>();
  }

  testing::TempDir dir_;
  testing::FakeClock clock_;
  testing::FakeBackend backend_;
  scheduler::LocalAdmission admission_{{0, 1}, {20000, 20099}, [](int) { return true; }};
  std::unique_ptr<storage::SqliteStorage> storage_;
  std::unique_ptr<StudyManager> studies_;
  std::unique_ptr<JobSubmission> submission_;
};

TEST_F(JobSubmissionTest, StoresTheJobQueuedWithItsStudyAndDefaults) {
  v1::Job job = MakeJob("stored", dir_.path());
  job.clear_job_dir();
  absl::StatusOr<v1::Job> submitted = submission_->Submit(job);
  ASSERT_TRUE(submitted.ok()) << submitted.status();
  EXPECT_EQ(submitted->state(), v1::Job::QUEUED);
  EXPECT_EQ(submitted->study_name(), "stored");
  EXPECT_EQ(submitted->job_dir(), dir_.path() + "/jobs/stored");
  ASSERT_EQ(submitted->replica_specs_size(), 1);
  EXPECT_EQ(submitted->replica_specs(0).role(), "master");
  absl::StatusOr<v1::Study> study = storage_->GetStudy("stored");
  ASSERT_TRUE(study.ok()) << study.status();
  EXPECT_EQ(study->spec().max_trials(), 3);
  EXPECT_EQ(submitted->create_time().seconds(), absl::ToUnixSeconds(clock_.Now()));
}

TEST_F(JobSubmissionTest, RefusesWhatCouldNeverRun) {
  v1::Job no_command = MakeJob("nocommand", dir_.path());
  no_command.clear_command();
  absl::Status status = submission_->Submit(no_command).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("has no trainer command"));

  v1::Job relative = MakeJob("relative", dir_.path());
  relative.set_job_dir("runs/relative");
  status = submission_->Submit(relative).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("must be an absolute path"));

  v1::Job bucket = MakeJob("bucket", dir_.path());
  bucket.set_job_dir("gs://bucket/x");
  status = submission_->Submit(bucket).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("job_dir \"gs://bucket/x\" is a URL"));

  v1::Job labelled = MakeJob("labelled", dir_.path());
  (*labelled.mutable_labels())["Team"] = "vision";
  status = submission_->Submit(labelled).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("job.labels[\"Team\"]: a label's key is 1 to 63"));
  labelled.mutable_labels()->clear();
  (*labelled.mutable_labels())["team"] = "Vision Lab";
  status = submission_->Submit(labelled).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("the value \"Vision Lab\" is not up to 63"));

  v1::Job no_params = MakeJob("noparams", dir_.path());
  no_params.mutable_training_input()->mutable_hyperparameters()->clear_params();
  EXPECT_EQ(submission_->Submit(no_params).status().code(), absl::StatusCode::kInvalidArgument);

  // More GPUs than the admission has: refused at submit, never left waiting.
  v1::Job too_big = MakeJob("toobig", dir_.path());
  too_big.mutable_training_input()->set_scale_tier("CUSTOM");
  too_big.mutable_training_input()->set_master_type("n1-standard-8");
  v1::AcceleratorConfig& gpus =
      *too_big.mutable_training_input()->mutable_master_config()->mutable_accelerator_config();
  gpus.set_count(4);
  gpus.set_type("NVIDIA_TESLA_T4");
  status = submission_->Submit(too_big).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "training_input.master_config.accelerator_config.count: master-0 needs 4 GPUs "
            "(n1-standard-8) but this server has 2 GPUs (`vernier serve --gpus` sets them)");
  // Nothing was stored.
  EXPECT_EQ(storage_->GetJob("toobig").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(storage_->GetJob("nocommand").status().code(), absl::StatusCode::kNotFound);
}

TEST_F(JobSubmissionTest, AnImageNeedsPodmanOnTheServer) {
  v1::Job job = MakeJob("image", dir_.path());
  job.mutable_training_input()->mutable_master_config()->set_image_uri("localhost/trainer:1");
  absl::Status status = submission_->Submit(job).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(),
              HasSubstr("training_input.master_config.image_uri: the master runs in a container "
                        "of \"localhost/trainer:1\", which needs podman"));
  EXPECT_THAT(status.message(), HasSubstr("install podman"));
  EXPECT_THAT(status.message(), HasSubstr("or remove imageUri"));
  EXPECT_EQ(storage_->GetJob("image").status().code(), absl::StatusCode::kNotFound);

  // With podman the job is stored with the image on its replicas, and the
  // preview shows the trainer in its container.
  JobSubmissionOptions options;
  options.podman_path = "/usr/bin/podman";
  JobSubmission with_podman(*storage_, *studies_, backend_, admission_, options, clock_.AsClock());
  LaunchSettings launch;
  launch.agent_path = "/opt/vernier-agent";
  launch.podman_path = options.podman_path;
  absl::StatusOr<v1::Job> preview = with_podman.Preview(job, launch);
  ASSERT_TRUE(preview.ok()) << preview.status();
  EXPECT_THAT(preview->launch_preview(),
              HasSubstr("/usr/bin/podman run --rm --replace --name vernier-image-t1-master-0-a0"));
  absl::StatusOr<v1::Job> submitted = with_podman.Submit(job);
  ASSERT_TRUE(submitted.ok()) << submitted.status();
  EXPECT_EQ(submitted->replica_specs(0).image_uri(), "localhost/trainer:1");
}

TEST_F(JobSubmissionTest, AnImageIsRefusedWhereTheBackendRunsNoContainers) {
  JobSubmissionOptions options;
  options.podman_path = "/usr/bin/podman";
  options.containers_unsupported = "the slurm scheduler does not run replicas in containers";
  JobSubmission slurm(*storage_, *studies_, backend_, admission_, options, clock_.AsClock());
  v1::Job job = MakeJob("slurmimage", dir_.path());
  job.mutable_training_input()->set_scale_tier("CUSTOM");
  job.mutable_training_input()->set_master_type("n1-standard-4");
  job.mutable_training_input()->set_worker_type("n1-standard-4");
  job.mutable_training_input()->set_worker_count(1);
  job.mutable_training_input()->mutable_worker_config()->set_image_uri("localhost/trainer:1");
  absl::Status status = slurm.Submit(job).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(),
              HasSubstr("training_input.worker_config.image_uri: the slurm scheduler does not run "
                        "replicas in containers; remove imageUri"));
  EXPECT_EQ(storage_->GetJob("slurmimage").status().code(), absl::StatusCode::kNotFound);
}

TEST_F(JobSubmissionTest, AnImageMustBeAReferenceNotAPodmanFlag) {
  JobSubmissionOptions options;
  options.podman_path = "/usr/bin/podman";
  JobSubmission with_podman(*storage_, *studies_, backend_, admission_, options, clock_.AsClock());
  for (const std::string image : {"--privileged", "trainer:1 --privileged", "a\nb"}) {
    v1::Job job = MakeJob("flag", dir_.path());
    job.mutable_training_input()->mutable_master_config()->set_image_uri(image);
    absl::Status status = with_podman.Submit(job).status();
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << image;
    EXPECT_THAT(status.message(), HasSubstr("training_input.master_config.image_uri: "));
    EXPECT_THAT(status.message(), HasSubstr("is not an image reference"));
  }
  EXPECT_EQ(storage_->GetJob("flag").status().code(), absl::StatusCode::kNotFound);
}

TEST_F(JobSubmissionTest, APreviewShowsTheFirstLaunchAndStoresNothing) {
  LaunchSettings launch;
  launch.agent_path = "/opt/vernier-agent";
  launch.server_address = "10.0.0.1:7730";
  absl::StatusOr<v1::Job> preview = submission_->Preview(MakeJob("preview", dir_.path()), launch);
  ASSERT_TRUE(preview.ok()) << preview.status();
  EXPECT_THAT(preview->launch_preview(), HasSubstr("/opt/vernier-agent"));
  EXPECT_THAT(preview->launch_preview(), HasSubstr("10.0.0.1:7730"));
  EXPECT_THAT(preview->launch_preview(), HasSubstr("--lr="));
  // This server grants GPUs: a replica without any sees none.
  EXPECT_THAT(preview->launch_preview(), HasSubstr("CUDA_VISIBLE_DEVICES=''"));
  EXPECT_EQ(storage_->GetJob("preview").status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(backend_.launches().empty());
}

TEST_F(JobSubmissionTest, AResumedJobGetsThePreviousJobsFinishedTrialsOnce) {
  v1::Job first = MakeJob("first", dir_.path());
  first.mutable_training_input()->mutable_hyperparameters()->set_max_parallel_trials(3);
  ASSERT_TRUE(submission_->Submit(first).ok());
  absl::StatusOr<SuggestResult> suggested = studies_->SuggestTrials("first", 3, "");
  ASSERT_TRUE(suggested.ok()) << suggested.status();
  ASSERT_EQ(suggested->trials.size(), 3u);
  ASSERT_TRUE(studies_->CompleteTrial("first", 1, testing::AccuracyMeasurement(0.8)).ok());
  ASSERT_TRUE(studies_->MarkInfeasible("first", 2, "diverged").ok());
  ASSERT_TRUE(studies_->FailTrial("first", 3, "crashed").ok());

  v1::Job second = MakeJob("second", dir_.path());
  second.mutable_training_input()->mutable_hyperparameters()->set_resume_previous_job_id("first");
  absl::StatusOr<v1::Job> submitted = submission_->Submit(second);
  ASSERT_TRUE(submitted.ok()) << submitted.status();
  ASSERT_TRUE(submission_->PrepareResume(*submitted).ok());
  std::vector<v1::Trial> copies = Trials("second");
  ASSERT_EQ(copies.size(), 2u);
  EXPECT_EQ(copies[0].state(), v1::Trial::SUCCEEDED);
  EXPECT_EQ(copies[0].client_id(), "resumed:first");
  EXPECT_EQ(copies[1].state(), v1::Trial::INFEASIBLE);
  // Its own 3 trials come on top of the 2 copies.
  absl::StatusOr<v1::Study> study = storage_->GetStudy("second");
  ASSERT_TRUE(study.ok()) << study.status();
  EXPECT_EQ(study->spec().max_trials(), 5);

  // Preparing again (after a restart) copies nothing twice.
  ASSERT_TRUE(submission_->PrepareResume(*submitted).ok());
  EXPECT_EQ(Trials("second").size(), 2u);
  study = storage_->GetStudy("second");
  EXPECT_EQ(study->spec().max_trials(), 5);
}

TEST_F(JobSubmissionTest, AResumedJobMustNameAJobThatTunedTheSameThing) {
  v1::Job missing = MakeJob("missing", dir_.path());
  missing.mutable_training_input()->mutable_hyperparameters()->set_resume_previous_job_id("nope");
  absl::Status status = submission_->Submit(missing).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(status.message(), HasSubstr("resume_previous_job_id: job \"nope\" not found"));

  ASSERT_TRUE(submission_->Submit(MakeJob("original", dir_.path())).ok());
  v1::Job other = MakeJob("other", dir_.path());
  other.mutable_training_input()->mutable_hyperparameters()->set_resume_previous_job_id("original");
  other.mutable_training_input()->mutable_hyperparameters()->set_goal(v1::MetricSpec::MINIMIZE);
  status = submission_->Submit(other).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(), HasSubstr("a resumed job must keep them"));
}

TEST_F(JobSubmissionTest, AJobThatResumesNothingIsLeftAlone) {
  absl::StatusOr<v1::Job> submitted = submission_->Submit(MakeJob("plain", dir_.path()));
  ASSERT_TRUE(submitted.ok()) << submitted.status();
  ASSERT_TRUE(submission_->PrepareResume(*submitted).ok());
  EXPECT_TRUE(Trials("plain").empty());
}

TEST_F(JobSubmissionTest, APackagedTrainerIsRefusedBesideAnImageOrWithoutAModule) {
  JobSubmissionOptions options;
  options.podman_path = "/usr/bin/podman";
  JobSubmission with_podman(*storage_, *studies_, backend_, admission_, options, clock_.AsClock());
  v1::Job job = MakeJob("packaged_image", dir_.path());
  job.clear_command();
  job.mutable_training_input()->set_python_module("trainer.task");
  job.mutable_training_input()->mutable_master_config()->set_image_uri("localhost/trainer:1");
  absl::Status status = with_podman.Submit(job).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(),
              HasSubstr("training_input.python_module: a packaged trainer runs with the "
                        "submitter's python3 on the host, and the master has an imageUri"));

  v1::Job no_module = MakeJob("packages_only", dir_.path());
  no_module.mutable_training_input()->add_package_uris(dir_.path());
  status = submission_->Submit(no_module).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(),
              HasSubstr("training_input.package_uris: packages are installed for a packaged "
                        "trainer only"));
  v1::Job links_only = MakeJob("links_only", dir_.path());
  links_only.mutable_training_input()->add_find_links(dir_.path());
  status = submission_->Submit(links_only).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("training_input.find_links: wheel folders hold"));
  EXPECT_FALSE(storage_->GetJob("packaged_image").ok());
  EXPECT_FALSE(storage_->GetJob("packages_only").ok());
}

TEST_F(JobSubmissionTest, APackagedTrainerIsRefusedWhereTheServerRunsNone) {
  JobSubmissionOptions options;
  options.default_job_root = dir_.path() + "/jobs";
  options.packages_unsupported = "this server runs trainers as the user trainer (--trial-user)";
  JobSubmission separated(*storage_, *studies_, backend_, admission_, options, clock_.AsClock());
  v1::Job job = MakeJob("packaged_separated", dir_.path());
  job.clear_command();
  job.mutable_training_input()->set_python_module("trainer.task");
  job.mutable_training_input()->add_package_uris(dir_.path());
  absl::Status status = separated.Submit(job).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(),
              HasSubstr("training_input.python_module: this server runs trainers as the user "
                        "trainer (--trial-user); submit a command instead"));
  EXPECT_FALSE(storage_->GetJob("packaged_separated").ok());
  EXPECT_FALSE(std::filesystem::exists(dir_.path() + "/jobs/packaged_separated"));
}

TEST_F(JobSubmissionTest, APackagesCopyThatCannotBeMovedIntoPlaceFailsTheJobAtOnce) {
  const std::string package = dir_.path() + "/src/trainer";
  std::filesystem::create_directories(package);
  std::ofstream(package + "/__init__.py") << "";
  std::ofstream(package + "/task.py") << "print('accuracy=1')\n";
  v1::Job job = MakeJob("unmovable", dir_.path());
  job.clear_command();
  // Debian's python3, whatever the PATH the tests run with.
  (*job.mutable_environment())["PATH"] = "/usr/bin:/bin";
  job.mutable_training_input()->set_python_module("trainer.task");
  job.mutable_training_input()->add_package_uris(package);
  PackageSnapshot::SetFaultHookForTesting([](PackageSnapshot::Step step, const std::string&) {
    return step == PackageSnapshot::Step::kMove ? std::make_error_code(std::errc::io_error)
                                                : std::error_code();
  });
  const absl::Status status = submission_->Submit(job).status();
  PackageSnapshot::SetFaultHookForTesting(nullptr);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition) << status;
  EXPECT_THAT(status.message(),
              HasSubstr("the copy of training_input.package_uris[0] (\"" + package + "\")"));
  EXPECT_THAT(status.message(), HasSubstr("job unmovable is stored as FAILED"));
  // Not run from the source as it is now: failed, with the reason.
  absl::StatusOr<v1::Job> stored = storage_->GetJob("unmovable");
  ASSERT_TRUE(stored.ok()) << stored.status();
  EXPECT_EQ(stored->state(), v1::Job::FAILED);
  EXPECT_THAT(stored->error_message(), HasSubstr("cannot be moved to"));
  EXPECT_TRUE(stored->has_end_time());
  absl::StatusOr<v1::Study> study = storage_->GetStudy("unmovable");
  ASSERT_TRUE(study.ok()) << study.status();
  EXPECT_EQ(study->state(), v1::Study::INACTIVE);
  // No copy, whole or partial, is left in the job dir.
  for (const auto& entry : std::filesystem::directory_iterator(stored->job_dir())) {
    EXPECT_FALSE(absl::StartsWith(entry.path().filename().string(), ".vernier-source"))
        << entry.path();
  }
}

}  // namespace
}  // namespace vernier::tuner
