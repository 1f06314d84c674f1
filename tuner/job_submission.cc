#include "tuner/job_submission.h"

#include <algorithm>
#include <filesystem>
#include <random>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "auth/secret_redaction.h"
#include "common/status_macros.h"
#include "google/protobuf/util/message_differencer.h"
#include "scheduler/path_beneath.h"
#include "spdlog/spdlog.h"
#include "suggest/designers/designer_factory.h"
#include "tuner/config/hyperparameter_validator.h"
#include "tuner/config/replica_spec_builder.h"
#include "tuner/config/study_spec_builder.h"
#include "tuner/config/training_input_defaults.h"
#include "tuner/package_snapshot.h"
#include "tuner/packaged_trainer.h"
#include "tuner/training_output_builder.h"

namespace vernier::tuner {
namespace {

// What must match for a previous job's results to mean the same thing now.
v1::HyperparameterSpec TunedEssentials(const v1::Job& job) {
  v1::HyperparameterSpec essentials;
  *essentials.mutable_params() = job.training_input().hyperparameters().params();
  essentials.set_hyperparameter_metric_tag(
      job.training_input().hyperparameters().hyperparameter_metric_tag());
  essentials.set_goal(job.training_input().hyperparameters().goal());
  *essentials.mutable_metrics() = job.training_input().hyperparameters().metrics();
  return essentials;
}

// The YAML field that gave a replica of `role` its image.
std::string ImageUriField(const std::string& role) {
  if (role == "worker") return "training_input.worker_config.image_uri";
  if (role == "ps") return "training_input.parameter_server_config.image_uri";
  if (role == "evaluator") return "training_input.evaluator_config.image_uri";
  return "training_input.master_config.image_uri";
}

// Podman reads a word that starts with '-' as a flag; spaces and control
// characters are in no image reference.
bool IsImageReference(const std::string& image) {
  return !image.empty() && image.front() != '-' &&
         std::none_of(image.begin(), image.end(),
                      [](unsigned char c) { return c <= ' ' || c == 0x7f; });
}

// Replicas with an image run in containers: the image must be a reference
// (never a podman flag), and this server must be able to run it.
absl::Status CheckContainers(const std::vector<v1::ReplicaSpec>& replicas,
                             const JobSubmissionOptions& options) {
  for (const v1::ReplicaSpec& replica : replicas) {
    const std::string& image = replica.image_uri();
    if (image.empty()) continue;
    const std::string field = ImageUriField(replica.role());
    if (!IsImageReference(image)) {
      return absl::InvalidArgumentError(
          absl::StrFormat("%s: \"%s\" is not an image reference (e.g. localhost/trainer:1 or "
                          "registry.example.com/team/trainer@sha256:...)",
                          field, absl::CHexEscape(image)));
    }
    if (!options.containers_unsupported.empty()) {
      return absl::FailedPreconditionError(absl::StrFormat(
          "%s: %s; remove imageUri to run the trainer on the nodes directly, or submit to a server "
          "with the local scheduler",
          field, options.containers_unsupported));
    }
    if (options.podman_path.empty()) {
      return absl::FailedPreconditionError(absl::StrFormat(
          "%s: the %s runs in a container of \"%s\", which needs podman, and the server found "
          "none (not on its PATH, no `vernier serve --podman PATH`): install podman on the "
          "server's machine (Debian: apt-get install podman) or remove imageUri",
          field, replica.role(), image));
    }
  }
  return absl::OkStatus();
}

}  // namespace

JobSubmission::JobSubmission(storage::Storage& storage, StudyManager& studies,
                             scheduler::Backend& backend, scheduler::Admission& admission,
                             JobSubmissionOptions options, Clock clock)
    : storage_(storage),
      studies_(studies),
      backend_(backend),
      admission_(admission),
      options_(std::move(options)),
      clock_(std::move(clock)) {}

absl::StatusOr<v1::Study> JobSubmission::Check(v1::Job& job) {
  VERNIER_RETURN_IF_ERROR(config::ValidateJobId(job.job_id()));
  if (job.command().empty() && !PackagedTrainer::IsPackaged(job)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("job \"%s\" has no trainer command; give it after `--`", job.job_id()));
  }
  if (!job.training_input().has_hyperparameters() ||
      job.training_input().hyperparameters().params().empty()) {
    return absl::InvalidArgumentError(
        "training_input.hyperparameters.params is empty: a tuning job needs at least one "
        "parameter to tune");
  }
  VERNIER_RETURN_IF_ERROR(config::ValidateJobFields(job));
  config::FillTrainingInputDefaults(*job.mutable_training_input());
  VERNIER_RETURN_IF_ERROR(config::ValidateTrainingInput(
      job.training_input(), config::ProtoPathLocator("training_input")));
  VERNIER_ASSIGN_OR_RETURN(
      std::vector<v1::ReplicaSpec> replicas,
      config::PlanReplicas(
          job.training_input(),
          options_.machine_types ? *options_.machine_types : config::MachineTypeCatalog::Default(),
          admission_, scheduler::GangOwner{job.owner(), job.job_id()},
          config::ProtoPathLocator("training_input")));
  VERNIER_RETURN_IF_ERROR(CheckContainers(replicas, options_));
  job.mutable_replica_specs()->Assign(replicas.begin(), replicas.end());
  if (job.job_dir().empty()) job.set_job_dir(job.training_input().job_dir());
  if (job.job_dir().empty() && !options_.default_job_root.empty()) {
    job.set_job_dir(absl::StrCat(options_.default_job_root, "/", job.job_id()));
  }
  if (absl::StrContains(job.job_dir(), "://")) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "job_dir \"%s\" is a URL; trials write their outputs to a folder where they run (this "
        "machine, or a file system the cluster's nodes share): give an absolute path",
        job.job_dir()));
  }
  if (job.job_dir().empty() || !std::filesystem::path(job.job_dir()).is_absolute()) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "job_dir \"%s\" must be an absolute path (the CLI's --job-dir)", job.job_dir()));
  }

  VERNIER_RETURN_IF_ERROR(scheduler::CheckJobDir(job.job_dir()));
  // The module becomes the command: PYTHON -m MODULE (installed at start).
  if (PackagedTrainer::IsPackaged(job) && !options_.packages_unsupported.empty()) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "training_input.python_module: %s; submit a command instead (`-- python3 -m MODULE`, its "
        "packages installed where that user can read them, on PYTHONPATH)",
        options_.packages_unsupported));
  }
  if (PackagedTrainer::IsPackaged(job)) {
    for (const v1::ReplicaSpec& replica : job.replica_specs()) {
      if (replica.image_uri().empty()) continue;
      // As on AI Platform: a Python package or a container, not both.
      return absl::InvalidArgumentError(absl::StrFormat(
          "training_input.python_module: a packaged trainer runs with the submitter's python3 on "
          "the host, and the %s has an imageUri, whose image brings its own trainer; give one or "
          "the other",
          replica.role()));
    }
    VERNIER_RETURN_IF_ERROR(PackagedTrainer::Prepare(job, options_.fallback_path));
  } else if (!job.training_input().find_links().empty()) {
    return absl::InvalidArgumentError(
        "training_input.find_links: wheel folders hold a packaged trainer's requirements; give "
        "training_input.python_module too (the CLI's --module-name)");
  } else if (!job.training_input().package_uris().empty()) {
    return absl::InvalidArgumentError(
        "training_input.package_uris: packages are installed for a packaged trainer only; give "
        "training_input.python_module too (the CLI's --module-name)");
  }

  v1::Study study;
  study.set_name(job.job_id());
  // The job's owner owns its study; the job's grants cover it.
  study.set_owner(job.owner());
  *study.mutable_grants() = job.grants();
  *study.mutable_spec() =
      config::StudySpecFromHyperparameters(job.training_input().hyperparameters());
  // Also validates the search space: the designer is built over it.
  VERNIER_RETURN_IF_ERROR(suggest::MakeDesigner(study.spec()).status());
  const std::string& previous_id = job.training_input().hyperparameters().resume_previous_job_id();
  if (!previous_id.empty()) {
    absl::StatusOr<v1::Job> previous = storage_.GetJob(previous_id);
    if (!previous.ok()) {
      return absl::NotFoundError(absl::StrFormat(
          "training_input.hyperparameters.resume_previous_job_id: job \"%s\" not found",
          previous_id));
    }
    if (!google::protobuf::util::MessageDifferencer::Equals(TunedEssentials(*previous),
                                                            TunedEssentials(job))) {
      return absl::FailedPreconditionError(absl::StrFormat(
          "training_input.hyperparameters.resume_previous_job_id: job \"%s\" tuned other "
          "parameters or another metric or goal; a resumed job must keep them",
          previous_id));
    }
  }
  study.mutable_spec()->set_seed(std::random_device{}() | 1);
  return study;
}

absl::StatusOr<v1::Job> JobSubmission::Submit(v1::Job job) {
  VERNIER_ASSIGN_OR_RETURN(v1::Study study, Check(job));
  const absl::Time now = clock_();
  study.set_state(v1::Study::ACTIVE);
  *study.mutable_create_time() = ToTimestamp(now);
  job.set_state(v1::Job::QUEUED);
  job.clear_error_message();
  job.clear_training_output();
  *job.mutable_create_time() = ToTimestamp(now);
  job.set_study_name(study.name());
  job.set_algorithm_description(suggest::DescribeAlgorithm(study.spec()));
  // A packaged trainer's packages as they are now: the trials run this copy
  // (docs/jobs.md, "Packaged trainers"), whatever happens to the source.
  std::string snapshot;
  if (PackagedTrainer::IsPackaged(job)) {
    VERNIER_ASSIGN_OR_RETURN(snapshot, PackageSnapshot::Take(job));
  }
  absl::StatusOr<v1::Job> created = storage_.CreateJob(job, study);
  if (!created.ok()) {
    if (!snapshot.empty()) PackageSnapshot::Discard(snapshot);
    return created.status();
  }
  if (!snapshot.empty()) {
    if (absl::Status kept = PackageSnapshot::Keep(job, snapshot); !kept.ok()) {
      return FailWithoutSnapshot(job, kept);
    }
  }
  spdlog::info("job={} submitted: {} trials, {} in parallel, {}", job.job_id(),
               study.spec().max_trials(), study.spec().max_parallel_trials(),
               job.algorithm_description());
  return *created;
}

absl::Status JobSubmission::FailWithoutSnapshot(const v1::Job& job, const absl::Status& kept) {
  // Stored already: it fails at once rather than install the packages as
  // they are now, and the submitter is told.
  const std::string error(kept.message());
  spdlog::error("job={} FAILED at submit: {}", job.job_id(), error);
  const absl::Time now = clock_();
  absl::StatusOr<v1::Job> failed = storage_.UpdateJob(job.job_id(), [&](v1::Job& stored) {
    stored.set_state(v1::Job::FAILED);
    stored.set_error_message(error);
    *stored.mutable_end_time() = ToTimestamp(now);
    return absl::OkStatus();
  });
  if (!failed.ok()) return failed.status();
  (void)storage_.UpdateStudy(job.study_name(), [](v1::Study& stored) {
    stored.set_state(v1::Study::INACTIVE);
    return absl::OkStatus();
  });
  return absl::FailedPreconditionError(
      absl::StrCat(error, "; job ", job.job_id(),
                   " is stored as FAILED: fix the job dir and submit again "
                   "under another id"));
}

absl::StatusOr<v1::Job> JobSubmission::Preview(v1::Job job, const LaunchSettings& launch) {
  VERNIER_ASSIGN_OR_RETURN(v1::Study study, Check(job));
  study.set_state(v1::Study::ACTIVE);
  job.set_state(v1::Job::QUEUED);
  job.set_study_name(study.name());
  job.set_algorithm_description(suggest::DescribeAlgorithm(study.spec()));
  VERNIER_ASSIGN_OR_RETURN(std::unique_ptr<suggest::Designer> designer,
                           suggest::MakeDesigner(study.spec()));
  std::mt19937_64 rng(study.spec().seed());
  VERNIER_ASSIGN_OR_RETURN(suggest::Suggestions first, designer->Suggest({}, 1, rng));
  v1::Trial trial;
  trial.set_id(1);
  if (!first.points.empty()) {
    for (v1::ParameterValue& value : suggest::ActiveValues(first.points.front())) {
      *trial.add_parameters() = std::move(value);
    }
  }
  ReplicaGrants grants;
  grants.server_grants_gpus = admission_.GrantsGpus();
  VERNIER_ASSIGN_OR_RETURN(std::string preview, backend_.PreviewLaunch(BuildTrialLaunch(
                                                    job, study, trial, launch, 0, grants)));
  // Secrets in the trainer's command or environment are not shown.
  job.set_launch_preview(auth::RedactText(preview));
  return job;
}

absl::Status JobSubmission::PrepareResume(const v1::Job& job) {
  const std::string& previous_id = job.training_input().hyperparameters().resume_previous_job_id();
  if (previous_id.empty()) return absl::OkStatus();
  VERNIER_ASSIGN_OR_RETURN(storage::Page<v1::Trial> existing,
                           studies_.ListTrials(job.study_name(), {}));
  const std::string resumed_client = ResumedClientId(previous_id);
  if (existing.items.empty()) {
    VERNIER_ASSIGN_OR_RETURN(v1::Job previous, storage_.GetJob(previous_id));
    VERNIER_ASSIGN_OR_RETURN(
        existing.items,
        studies_.CopyFinishedTrials(job.study_name(), previous.study_name(), resumed_client));
    spdlog::info("job={} resumes job {} with {} finished trials", job.job_id(), previous_id,
                 existing.items.size());
  }
  // The job's maxTrials counts its own new trials; the copies come on top.
  int resumed = 0;
  for (const v1::Trial& trial : existing.items) {
    resumed += trial.client_id() == resumed_client ? 1 : 0;
  }
  return studies_.SetMaxTrials(job.study_name(),
                               job.training_input().hyperparameters().max_trials() + resumed);
}

}  // namespace vernier::tuner
