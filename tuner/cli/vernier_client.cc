#include "tuner/cli/vernier_client.h"

#include <chrono>
#include <utility>

#include "absl/strings/str_cat.h"
#include "auth/bearer_token_interceptor.h"
#include "auth/client_token.h"
#include "tls/channel_credentials.h"
#include "tuner/cli/http_port_probe.h"
#include "vernier/grpc_status.h"

namespace vernier::cli {
namespace {

std::chrono::system_clock::time_point DeadlineAfter(absl::Duration timeout) {
  return absl::ToChronoTime(absl::Now() + timeout);
}

}  // namespace

VernierClient::VernierClient(Options options) : options_(std::move(options)) {
  grpc::ChannelArguments arguments;
  // A CLI talking to its own service must not be routed through an
  // http_proxy meant for the web.
  arguments.SetInt(GRPC_ARG_ENABLE_HTTP_PROXY, 0);
  arguments.SetMaxReceiveMessageSize(kMaxReceiveBytes);
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> credentials =
      tls::MakeChannelCredentials(options_.tls, absl::Now());
  if (!credentials.ok()) {
    setup_status_ = credentials.status();
    return;
  }
  tls::ApplyServerName(options_.tls, arguments);
  absl::StatusOr<std::string> token =
      auth::ResolveClientToken(options_.token, options_.token_file, options_.address);
  if (!token.ok()) {
    setup_status_ = token.status();
    return;
  }
  channel_ = auth::CreateChannelWithToken(options_.address, *credentials, arguments, *token);
  jobs_ = v1::JobService::NewStub(channel_);
  studies_ = v1::StudyService::NewStub(channel_);
  auth_ = v1::AuthService::NewStub(channel_);
  audit_ = v1::AuditService::NewStub(channel_);
}

absl::Status VernierClient::EnsureConnected() {
  if (connected_) return absl::OkStatus();
  if (!setup_status_.ok()) return setup_status_;
  if (!channel_->WaitForConnected(DeadlineAfter(options_.connect_timeout))) {
    if (!options_.tls.enabled() &&
        HttpPortProbe::AnswersHttp1(options_.address, absl::Seconds(2))) {
      return absl::UnavailableError(absl::StrCat(
          "cannot reach the Vernier server at ", options_.address,
          ": that port answers HTTP/1.1, so it is `vernier serve`'s HTTP port (the dashboard and "
          "the HTTP/JSON API, default 7731); the CLI speaks gRPC, on `vernier serve --port` "
          "(default 7730): give that port to --server"));
    }
    // A TLS handshake that fails looks the same from here as no server.
    return absl::UnavailableError(absl::StrCat(
        "cannot reach the Vernier server at ", options_.address,
        options_.tls.enabled()
            ? " (is `vernier serve` running there, does the CA in --tls-ca sign its certificate "
              "and does that name the host dialled (else --tls-server-name), and, under mutual "
              "TLS, does it accept --tls-cert?)"
            : " (is `vernier serve` running? If it serves TLS, pass --tls-ca CA.pem or set "
              "VERNIER_TLS_CA)"));
  }
  connected_ = true;
  return absl::OkStatus();
}

std::unique_ptr<grpc::ClientContext> VernierClient::NewUnaryContext() const {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(DeadlineAfter(options_.rpc_timeout));
  return context;
}

absl::Status VernierClient::FromRpcStatus(const grpc::Status& status) const {
  switch (status.error_code()) {
    case grpc::StatusCode::UNAVAILABLE:
      return absl::UnavailableError(absl::StrCat("lost the Vernier server at ", options_.address,
                                                 ": ", status.error_message()));
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return absl::DeadlineExceededError(
          absl::StrCat("the Vernier server at ", options_.address, " did not answer within ",
                       absl::FormatDuration(options_.rpc_timeout), ": ", status.error_message()));
    default:
      return FromGrpcStatus(status);
  }
}

template <typename Response>
absl::StatusOr<Response> VernierClient::CallUnary(
    const std::function<grpc::Status(grpc::ClientContext*, Response*)>& call) {
  if (absl::Status connected = EnsureConnected(); !connected.ok()) return connected;
  auto context = NewUnaryContext();
  Response response;
  const grpc::Status status = call(context.get(), &response);
  if (!status.ok()) return FromRpcStatus(status);
  return response;
}

absl::StatusOr<v1::Job> VernierClient::SubmitTrainingJob(const v1::Job& job, bool dry_run) {
  v1::SubmitTrainingJobRequest request;
  *request.mutable_job() = job;
  request.set_dry_run(dry_run);
  return CallUnary<v1::Job>([&](grpc::ClientContext* context, v1::Job* response) {
    return jobs_->SubmitTrainingJob(context, request, response);
  });
}

absl::StatusOr<v1::GetJobResponse> VernierClient::GetJob(const std::string& job_id) {
  v1::GetJobRequest request;
  request.set_job_id(job_id);
  return CallUnary<v1::GetJobResponse>(
      [&](grpc::ClientContext* context, v1::GetJobResponse* response) {
        return jobs_->GetJob(context, request, response);
      });
}

absl::StatusOr<v1::ListJobsResponse> VernierClient::ListJobs(int page_size,
                                                             const std::string& page_token) {
  v1::ListJobsRequest request;
  request.set_page_size(page_size);
  request.set_page_token(page_token);
  return CallUnary<v1::ListJobsResponse>(
      [&](grpc::ClientContext* context, v1::ListJobsResponse* response) {
        return jobs_->ListJobs(context, request, response);
      });
}

absl::StatusOr<v1::Job> VernierClient::CancelJob(const std::string& job_id) {
  v1::CancelJobRequest request;
  request.set_job_id(job_id);
  return CallUnary<v1::Job>([&](grpc::ClientContext* context, v1::Job* response) {
    return jobs_->CancelJob(context, request, response);
  });
}

absl::Status VernierClient::DeleteJob(const std::string& job_id) {
  v1::DeleteJobRequest request;
  request.set_job_id(job_id);
  return CallUnary<v1::DeleteJobResponse>(
             [&](grpc::ClientContext* context, v1::DeleteJobResponse* response) {
               return jobs_->DeleteJob(context, request, response);
             })
      .status();
}

absl::Status VernierClient::StreamLogs(
    const v1::StreamLogsRequest& request,
    const std::function<absl::Status(const v1::LogLine&)>& on_line) {
  if (absl::Status connected = EnsureConnected(); !connected.ok()) return connected;
  grpc::ClientContext context;
  std::unique_ptr<grpc::ClientReader<v1::LogLine>> reader = jobs_->StreamLogs(&context, request);
  v1::LogLine line;
  while (reader->Read(&line)) {
    if (absl::Status handled = on_line(line); !handled.ok()) {
      context.TryCancel();
      reader->Finish();
      return handled;
    }
  }
  const grpc::Status status = reader->Finish();
  if (!status.ok()) return FromRpcStatus(status);
  return absl::OkStatus();
}

absl::StatusOr<v1::Trial> VernierClient::GetTrial(const std::string& study_name, int64_t trial_id) {
  v1::GetTrialRequest request;
  request.set_study_name(study_name);
  request.set_trial_id(trial_id);
  return CallUnary<v1::Trial>([&](grpc::ClientContext* context, v1::Trial* response) {
    return studies_->GetTrial(context, request, response);
  });
}

absl::StatusOr<v1::Study> VernierClient::GetStudy(const std::string& study_name) {
  v1::GetStudyRequest request;
  request.set_study_name(study_name);
  return CallUnary<v1::Study>([&](grpc::ClientContext* context, v1::Study* response) {
    return studies_->GetStudy(context, request, response);
  });
}

absl::StatusOr<v1::ListStudiesResponse> VernierClient::ListStudies(int page_size,
                                                                   const std::string& page_token) {
  v1::ListStudiesRequest request;
  request.set_page_size(page_size);
  request.set_page_token(page_token);
  return CallUnary<v1::ListStudiesResponse>(
      [&](grpc::ClientContext* context, v1::ListStudiesResponse* response) {
        return studies_->ListStudies(context, request, response);
      });
}

absl::Status VernierClient::DeleteStudy(const std::string& study_name) {
  v1::DeleteStudyRequest request;
  request.set_study_name(study_name);
  return CallUnary<v1::DeleteStudyResponse>(
             [&](grpc::ClientContext* context, v1::DeleteStudyResponse* response) {
               return studies_->DeleteStudy(context, request, response);
             })
      .status();
}

absl::StatusOr<v1::ListTrialsResponse> VernierClient::ListTrials(
    const v1::ListTrialsRequest& request) {
  return CallUnary<v1::ListTrialsResponse>(
      [&](grpc::ClientContext* context, v1::ListTrialsResponse* response) {
        return studies_->ListTrials(context, request, response);
      });
}

absl::StatusOr<v1::ListOptimalTrialsResponse> VernierClient::ListOptimalTrials(
    const std::string& study_name, int top) {
  v1::ListOptimalTrialsRequest request;
  request.set_study_name(study_name);
  request.set_top(top);
  return CallUnary<v1::ListOptimalTrialsResponse>(
      [&](grpc::ClientContext* context, v1::ListOptimalTrialsResponse* response) {
        return studies_->ListOptimalTrials(context, request, response);
      });
}

absl::StatusOr<v1::CreateTokenResponse> VernierClient::CreateToken(
    const v1::CreateTokenRequest& request) {
  return CallUnary<v1::CreateTokenResponse>(
      [&](grpc::ClientContext* context, v1::CreateTokenResponse* response) {
        return auth_->CreateToken(context, request, response);
      });
}

absl::StatusOr<v1::ListTokensResponse> VernierClient::ListTokens(bool include_inactive) {
  v1::ListTokensRequest request;
  request.set_include_inactive(include_inactive);
  return CallUnary<v1::ListTokensResponse>(
      [&](grpc::ClientContext* context, v1::ListTokensResponse* response) {
        return auth_->ListTokens(context, request, response);
      });
}

absl::StatusOr<v1::ListAuditEntriesResponse> VernierClient::ListAuditEntries(
    const v1::ListAuditEntriesRequest& request) {
  return CallUnary<v1::ListAuditEntriesResponse>(
      [&](grpc::ClientContext* context, v1::ListAuditEntriesResponse* response) {
        return audit_->ListAuditEntries(context, request, response);
      });
}

absl::StatusOr<v1::VerifyAuditLogResponse> VernierClient::VerifyAuditLog(
    const std::string& head_hash) {
  v1::VerifyAuditLogRequest request;
  request.set_head_hash(head_hash);
  return CallUnary<v1::VerifyAuditLogResponse>(
      [&](grpc::ClientContext* context, v1::VerifyAuditLogResponse* response) {
        return audit_->VerifyAuditLog(context, request, response);
      });
}

absl::StatusOr<v1::ApiToken> VernierClient::RevokeToken(const std::string& token_id) {
  v1::RevokeTokenRequest request;
  request.set_token_id(token_id);
  return CallUnary<v1::ApiToken>([&](grpc::ClientContext* context, v1::ApiToken* response) {
    return auth_->RevokeToken(context, request, response);
  });
}

absl::StatusOr<v1::ShareResponse> VernierClient::Share(bool job, const v1::ShareRequest& request) {
  return CallUnary<v1::ShareResponse>(
      [&](grpc::ClientContext* context, v1::ShareResponse* response) {
        return job ? auth_->ShareJob(context, request, response)
                   : auth_->ShareStudy(context, request, response);
      });
}

}  // namespace vernier::cli
