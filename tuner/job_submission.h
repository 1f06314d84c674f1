#ifndef VERNIER_TUNER_JOB_SUBMISSION_H_
#define VERNIER_TUNER_JOB_SUBMISSION_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "scheduler/admission.h"
#include "scheduler/backend.h"
#include "tuner/clock.h"
#include "tuner/config/machine_type_catalog.h"
#include "tuner/storage/storage.h"
#include "tuner/study_manager.h"
#include "tuner/trial_launch_builder.h"
#include "vernier/v1/job.pb.h"

namespace vernier::tuner {

struct JobSubmissionOptions {
  // Jobs submitted without a job dir get DEFAULT_JOB_ROOT/JOB_ID.
  std::string default_job_root;
  // The machine types and scale tiers jobs may ask for; null: the built-in
  // config/machine-types.yaml.
  std::shared_ptr<const config::MachineTypeCatalog> machine_types;
  // Where a packaged trainer's python3 is looked for when the job sends no
  // PATH: the server's own PATH.
  std::string fallback_path{};
  // The podman that runs replicas with an image (imageUri); empty: none,
  // and such jobs are refused.
  std::string podman_path{};
  // Why this server's backend cannot run replicas in containers; empty: it
  // can (with podman_path).
  std::string containers_unsupported{};
  // Why this server does not run packaged trainers (python_module with
  // packageUris); empty: it does.
  std::string packages_unsupported{};
};

// A job's way in: checks a submitted job (trainer command, trainingInput,
// replicas the scheduler can ever start, their images, job dir, search space, the job it
// resumes), stores it QUEUED with its study, or shows what its first trial
// would start (dry run); and, before a resumed job's first pass, gives it the
// finished trials of the job it resumes.
class JobSubmission {
 public:
  JobSubmission(storage::Storage& storage, StudyManager& studies, scheduler::Backend& backend,
                scheduler::Admission& admission, JobSubmissionOptions options, Clock clock);

  // Checks `job`, fills in its defaults and stores it QUEUED with its study.
  absl::StatusOr<v1::Job> Submit(v1::Job job);
  // Checks `job` as Submit does and returns it as it would be stored, with
  // launch_preview: what the backend would start for a first trial
  // (parameters from a fresh designer), launched with `launch`. Creates and
  // starts nothing.
  absl::StatusOr<v1::Job> Preview(v1::Job job, const LaunchSettings& launch);
  // For a job with resumePreviousJobId, before it first runs: copies the
  // previous job's finished trials into its study (once: a study that has
  // trials keeps them) and raises its max_trials by them, so that its
  // maxTrials counts its own new trials. Nothing for other jobs.
  absl::Status PrepareResume(const v1::Job& job);

 private:
  // Fills in the job's defaults and checks it; the study it would get.
  absl::StatusOr<v1::Study> Check(v1::Job& job);
  // The stored job's packages' copy could not be moved into place (`kept`):
  // fails the job and its study at once; the error for the submitter.
  absl::Status FailWithoutSnapshot(const v1::Job& job, const absl::Status& kept);

  storage::Storage& storage_;
  StudyManager& studies_;
  scheduler::Backend& backend_;
  scheduler::Admission& admission_;
  JobSubmissionOptions options_;
  Clock clock_;
};

}  // namespace vernier::tuner

#endif  // VERNIER_TUNER_JOB_SUBMISSION_H_
