#include "tuner/job_service_impl.h"

#include <algorithm>
#include <thread>

#include "absl/status/status.h"
#include "absl/strings/str_format.h"
#include "auth/secret_redaction.h"
#include "tuner/config/hyperparameter_validator.h"
#include "tuner/list_page_budget.h"
#include "tuner/log_follower.h"
#include "tuner/storage/page_token.h"
#include "tuner/storage/stored_rows.h"
#include "tuner/storage/trial_states.h"
#include "vernier/grpc_status.h"

namespace vernier::tuner {
namespace {

absl::Status RequireJobId(const std::string& job_id) {
  if (job_id.empty()) return absl::InvalidArgumentError("job_id is required");
  return absl::OkStatus();
}

// The most trials one ListTrialRuns call names.
constexpr int kMaxListedTrialRuns = 1000;

absl::Status CheckTrialIds(const google::protobuf::RepeatedField<int64_t>& trial_ids) {
  if (trial_ids.empty() || trial_ids.size() > kMaxListedTrialRuns) {
    return absl::InvalidArgumentError(absl::StrFormat("trial_ids: give 1 to %d trial ids, got %d",
                                                      kMaxListedTrialRuns, trial_ids.size()));
  }
  for (int i = 0; i < trial_ids.size(); ++i) {
    if (trial_ids[i] <= 0) {
      return absl::InvalidArgumentError(
          absl::StrFormat("trial_ids[%d] is %d; trial ids are positive", i, trial_ids[i]));
    }
  }
  return absl::OkStatus();
}

void HideSecretValues(google::protobuf::Map<std::string, std::string>& environment) {
  for (auto& [name, value] : environment) {
    if (auth::LooksSecret(name)) value = std::string(auth::kRedacted);
  }
}

// A job as answered: the values of secret-looking variables of its
// environment (HF_TOKEN, WANDB_API_KEY, ...) stay on the server, which
// launches with them, and are not shown to whoever may read the job.
v1::Job WithoutSecretValues(v1::Job job) {
  HideSecretValues(*job.mutable_environment());
  for (v1::ReplicaSpec& spec : *job.mutable_replica_specs()) HideSecretValues(*spec.mutable_env());
  v1::TrainingInput& input = *job.mutable_training_input();
  for (auto [has, config] :
       {std::pair{input.has_master_config(), &v1::TrainingInput::mutable_master_config},
        std::pair{input.has_worker_config(), &v1::TrainingInput::mutable_worker_config},
        std::pair{input.has_parameter_server_config(),
                  &v1::TrainingInput::mutable_parameter_server_config},
        std::pair{input.has_evaluator_config(), &v1::TrainingInput::mutable_evaluator_config}}) {
    if (has) HideSecretValues(*(input.*config)()->mutable_env());
  }
  return job;
}

}  // namespace

grpc::Status JobServiceImpl::SubmitTrainingJob(grpc::ServerContext*,
                                               const v1::SubmitTrainingJobRequest* request,
                                               v1::Job* response) {
  // Refused before anything is stored: the job dir goes into scripts.
  if (absl::Status status = config::ValidateJobDir(request->job().job_dir()); !status.ok()) {
    return ToGrpcStatus(status);
  }
  absl::StatusOr<v1::Job> job =
      request->dry_run() ? jobs_.PreviewJob(request->job()) : jobs_.SubmitJob(request->job());
  if (!job.ok()) return ToGrpcStatus(job.status());
  *response = WithoutSecretValues(*std::move(job));
  return grpc::Status::OK;
}

grpc::Status JobServiceImpl::GetJob(grpc::ServerContext*, const v1::GetJobRequest* request,
                                    v1::GetJobResponse* response) {
  if (absl::Status status = RequireJobId(request->job_id()); !status.ok()) {
    return ToGrpcStatus(status);
  }
  absl::StatusOr<v1::GetJobResponse> job = jobs_.GetJob(request->job_id());
  if (!job.ok()) return ToGrpcStatus(job.status());
  *response = std::move(*job);
  *response->mutable_job() = WithoutSecretValues(std::move(*response->mutable_job()));
  return grpc::Status::OK;
}

grpc::Status JobServiceImpl::ListTrialRuns(grpc::ServerContext*,
                                           const v1::ListTrialRunsRequest* request,
                                           v1::ListTrialRunsResponse* response) {
  if (absl::Status status = RequireJobId(request->job_id()); !status.ok()) {
    return ToGrpcStatus(status);
  }
  if (absl::Status status = CheckTrialIds(request->trial_ids()); !status.ok()) {
    return ToGrpcStatus(status);
  }
  absl::StatusOr<std::vector<v1::TrialRun>> runs = storage_.ListTrialRunsOf(
      request->job_id(),
      {request->trial_ids().data(), static_cast<size_t>(request->trial_ids().size())});
  if (!runs.ok()) return ToGrpcStatus(runs.status());
  for (v1::TrialRun& run : *runs) *response->add_trial_runs() = std::move(run);
  return grpc::Status::OK;
}

grpc::Status JobServiceImpl::ListJobs(grpc::ServerContext*, const v1::ListJobsRequest* request,
                                      v1::ListJobsResponse* response) {
  absl::StatusOr<storage::Page<v1::Job>> page =
      jobs_.ListJobs(request->page_size(), request->page_token());
  if (!page.ok()) return ToGrpcStatus(page.status());
  if (const size_t fit = ItemsWithinListBudget(page->items); fit < page->items.size()) {
    page->items.resize(fit);
    const v1::Job& last = page->items.back();
    page->next_page_token = storage::EncodeJobPageToken(storage::JobPageCursor{
        .create_time_micros = storage::ToMicros(last.create_time()), .job_id = last.job_id()});
  }
  for (v1::Job& job : page->items) *response->add_jobs() = WithoutSecretValues(std::move(job));
  response->set_next_page_token(page->next_page_token);
  return grpc::Status::OK;
}

grpc::Status JobServiceImpl::CancelJob(grpc::ServerContext*, const v1::CancelJobRequest* request,
                                       v1::Job* response) {
  if (absl::Status status = RequireJobId(request->job_id()); !status.ok()) {
    return ToGrpcStatus(status);
  }
  absl::StatusOr<v1::Job> job = jobs_.CancelJob(request->job_id());
  if (!job.ok()) return ToGrpcStatus(job.status());
  *response = WithoutSecretValues(*std::move(job));
  return grpc::Status::OK;
}

grpc::Status JobServiceImpl::DeleteJob(grpc::ServerContext*, const v1::DeleteJobRequest* request,
                                       v1::DeleteJobResponse*) {
  if (absl::Status status = RequireJobId(request->job_id()); !status.ok()) {
    return ToGrpcStatus(status);
  }
  return ToGrpcStatus(jobs_.DeleteJob(request->job_id()));
}

grpc::Status JobServiceImpl::StreamLogs(grpc::ServerContext* context,
                                        const v1::StreamLogsRequest* request,
                                        grpc::ServerWriter<v1::LogLine>* writer) {
  return FollowLogs(context, request, writer, [] { return absl::OkStatus(); });
}

grpc::Status JobServiceImpl::FollowLogs(grpc::ServerContext* context,
                                        const v1::StreamLogsRequest* request,
                                        grpc::ServerWriter<v1::LogLine>* writer,
                                        const std::function<absl::Status()>& caller_still_allowed) {
  auto last_check = std::chrono::steady_clock::now();
  if (absl::Status status = RequireJobId(request->job_id()); !status.ok()) {
    return ToGrpcStatus(status);
  }
  LogFollower follower;
  bool trial_checked = request->trial_id() == 0;
  // One trial's logs read that trial's run alone, every pass.
  const int64_t trial_id = request->trial_id();
  while (true) {
    absl::StatusOr<v1::Job> job = storage_.GetJob(request->job_id());
    if (!job.ok()) return ToGrpcStatus(job.status());
    absl::StatusOr<std::vector<v1::TrialRun>> runs =
        trial_id == 0 ? storage_.ListTrialRuns(request->job_id())
                      : storage_.ListTrialRunsOf(request->job_id(), {&trial_id, 1});
    if (!runs.ok()) return ToGrpcStatus(runs.status());
    if (!trial_checked) {
      // A trial that ran or exists, or (followed, while the job runs) may
      // still start.
      trial_checked = std::any_of(runs->begin(), runs->end(), [&](const v1::TrialRun& run) {
        return run.trial_id() == request->trial_id();
      });
      if (!trial_checked) {
        absl::StatusOr<v1::Trial> trial = storage_.GetTrial(
            job->study_name(), request->trial_id(), /*include_measurements=*/false);
        if (!trial.ok() && !absl::IsNotFound(trial.status())) return ToGrpcStatus(trial.status());
        trial_checked = trial.ok();
      }
      const bool may_start =
          request->follow() && !HasEnded(job->state()) && request->trial_id() > 0;
      if (!trial_checked && !may_start) {
        return ToGrpcStatus(absl::NotFoundError(absl::StrFormat(
            "job \"%s\" has no trial %d (trials are numbered from 1; `vernier trials list %s` "
            "lists them)",
            request->job_id(), request->trial_id(), job->study_name())));
      }
    }
    for (const v1::TrialRun& run : *runs) {
      if (request->trial_id() != 0 && run.trial_id() != request->trial_id()) continue;
      for (const v1::ReplicaStatus& replica : run.replicas()) {
        follower.AddSource(run.trial_id(), replica.role(), replica.index(), replica.log_path(),
                           run.attempt());
      }
    }
    // Once the job has ended, its files are complete: send the rest and stop.
    const bool last_pass = !request->follow() || HasEnded(job->state());
    for (const v1::LogLine& line : last_pass ? follower.Drain() : follower.Poll()) {
      if (!writer->Write(line)) return grpc::Status::CANCELLED;
    }
    if (last_pass) return grpc::Status::OK;
    if (context->IsCancelled()) return grpc::Status::CANCELLED;
    std::this_thread::sleep_for(log_poll_interval_);
    // A follower whose credentials were revoked (or expired) stops here.
    if (std::chrono::steady_clock::now() - last_check >= kCallerRecheckInterval) {
      last_check = std::chrono::steady_clock::now();
      if (absl::Status allowed = caller_still_allowed(); !allowed.ok()) {
        return ToGrpcStatus(allowed);
      }
    }
  }
}

}  // namespace vernier::tuner
