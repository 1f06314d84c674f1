#include "tuner/authorized_services.h"

#include "absl/strings/str_cat.h"
#include "vernier/grpc_status.h"

namespace vernier::tuner {
namespace {

constexpr char kStudyService[] = "/vernier.v1.StudyService/";
constexpr char kJobService[] = "/vernier.v1.JobService/";
constexpr char kAgentService[] = "/vernier.v1.AgentService/";

}  // namespace

// Every method below: the gate first, then the handler.

grpc::Status AuthorizedStudyService::GetStudy(grpc::ServerContext* context, const v1::GetStudyRequest* request,
                                              v1::Study* response) {
  absl::StatusOr<auth::Identity> who = gate_.Authorize(*context, absl::StrCat(kStudyService, "GetStudy"), *request);
  if (!who.ok()) return ToGrpcStatus(who.status());
  return inner_.GetStudy(context, request, response);
}

grpc::Status AuthorizedStudyService::ListStudies(grpc::ServerContext* context, const v1::ListStudiesRequest* request,
                                                 v1::ListStudiesResponse* response) {
  absl::StatusOr<auth::Identity> who = gate_.Authorize(*context, absl::StrCat(kStudyService, "ListStudies"), *request);
  if (!who.ok()) return ToGrpcStatus(who.status());
  return inner_.ListStudies(context, request, response);
}

grpc::Status AuthorizedStudyService::DeleteStudy(grpc::ServerContext* context, const v1::DeleteStudyRequest* request,
                                                 v1::DeleteStudyResponse* response) {
  absl::StatusOr<auth::Identity> who = gate_.Authorize(*context, absl::StrCat(kStudyService, "DeleteStudy"), *request);
  if (!who.ok()) return ToGrpcStatus(who.status());
  return inner_.DeleteStudy(context, request, response);
}

grpc::Status AuthorizedStudyService::SuggestTrials(grpc::ServerContext* context, const v1::SuggestTrialsRequest* request,
                                                   v1::SuggestTrialsResponse* response) {
  absl::StatusOr<auth::Identity> who = gate_.Authorize(*context, absl::StrCat(kStudyService, "SuggestTrials"), *request);
  if (!who.ok()) return ToGrpcStatus(who.status());
  return inner_.SuggestTrials(context, request, response);
}

grpc::Status AuthorizedStudyService::CreateTrial(grpc::ServerContext* context, const v1::CreateTrialRequest* request,
                                                 v1::Trial* response) {
  absl::StatusOr<auth::Identity> who = gate_.Authorize(*context, absl::StrCat(kStudyService, "CreateTrial"), *request);
  if (!who.ok()) return ToGrpcStatus(who.status());
  return inner_.CreateTrial(context, request, response);
}

grpc::Status AuthorizedStudyService::GetTrial(grpc::ServerContext* context, const v1::GetTrialRequest* request,
                                              v1::Trial* response) {
  absl::StatusOr<auth::Identity> who = gate_.Authorize(*context, absl::StrCat(kStudyService, "GetTrial"), *request);
  if (!who.ok()) return ToGrpcStatus(who.status());
  return inner_.GetTrial(context, request, response);
}

grpc::Status AuthorizedStudyService::ListTrials(grpc::ServerContext* context, const v1::ListTrialsRequest* request,
                                                v1::ListTrialsResponse* response) {
  absl::StatusOr<auth::Identity> who = gate_.Authorize(*context, absl::StrCat(kStudyService, "ListTrials"), *request);
  if (!who.ok()) return ToGrpcStatus(who.status());
  return inner_.ListTrials(context, request, response);
}

grpc::Status AuthorizedStudyService::CompleteTrial(grpc::ServerContext* context, const v1::CompleteTrialRequest* request,
                                                   v1::Trial* response) {
  absl::StatusOr<auth::Identity> who = gate_.Authorize(*context, absl::StrCat(kStudyService, "CompleteTrial"), *request);
  if (!who.ok()) return ToGrpcStatus(who.status());
  return inner_.CompleteTrial(context, request, response);
}

grpc::Status AuthorizedStudyService::StopTrial(grpc::ServerContext* context, const v1::StopTrialRequest* request,
                                               v1::Trial* response) {
  absl::StatusOr<auth::Identity> who = gate_.Authorize(*context, absl::StrCat(kStudyService, "StopTrial"), *request);
  if (!who.ok()) return ToGrpcStatus(who.status());
  return inner_.StopTrial(context, request, response);
}

grpc::Status AuthorizedStudyService::CheckEarlyStopping(grpc::ServerContext* context, const v1::CheckEarlyStoppingRequest* request,
                                                        v1::CheckEarlyStoppingResponse* response) {
  absl::StatusOr<auth::Identity> who = gate_.Authorize(*context, absl::StrCat(kStudyService, "CheckEarlyStopping"), *request);
  if (!who.ok()) return ToGrpcStatus(who.status());
  return inner_.CheckEarlyStopping(context, request, response);
}

grpc::Status AuthorizedStudyService::ListOptimalTrials(grpc::ServerContext* context, const v1::ListOptimalTrialsRequest* request,
                                                       v1::ListOptimalTrialsResponse* response) {
  absl::StatusOr<auth::Identity> who = gate_.Authorize(*context, absl::StrCat(kStudyService, "ListOptimalTrials"), *request);
  if (!who.ok()) return ToGrpcStatus(who.status());
  return inner_.ListOptimalTrials(context, request, response);
}

grpc::Status AuthorizedStudyService::ParseStudySpec(grpc::ServerContext* context, const v1::ParseStudySpecRequest* request,
                                                    v1::ParseStudySpecResponse* response) {
  absl::StatusOr<auth::Identity> who = gate_.Authorize(*context, absl::StrCat(kStudyService, "ParseStudySpec"), *request);
  if (!who.ok()) return ToGrpcStatus(who.status());
  return inner_.ParseStudySpec(context, request, response);
}

grpc::Status AuthorizedStudyService::CreateStudy(grpc::ServerContext* context,
                                                 const v1::CreateStudyRequest* request,
                                                 v1::Study* response) {
  absl::StatusOr<auth::Identity> who =
      gate_.Authorize(*context, absl::StrCat(kStudyService, "CreateStudy"), *request);
  if (!who.ok()) return ToGrpcStatus(who.status());
  v1::CreateStudyRequest owned = *request;
  owned.mutable_study()->set_owner(who->user);
  owned.mutable_study()->clear_grants();
  return inner_.CreateStudy(context, &owned, response);
}

grpc::ServerUnaryReactor* AuthorizedStudyService::AddMeasurement(
    grpc::CallbackServerContext* context, const v1::AddMeasurementRequest* request,
    v1::Trial* response) {
  absl::StatusOr<auth::Identity> who =
      gate_.Authorize(*context, absl::StrCat(kStudyService, "AddMeasurement"), *request);
  if (!who.ok()) {
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    reactor->Finish(ToGrpcStatus(who.status()));
    return reactor;
  }
  return inner_.AddMeasurement(context, request, response);
}

grpc::Status AuthorizedJobService::GetJob(grpc::ServerContext* context, const v1::GetJobRequest* request,
                                          v1::GetJobResponse* response) {
  absl::StatusOr<auth::Identity> who = gate_.Authorize(*context, absl::StrCat(kJobService, "GetJob"), *request);
  if (!who.ok()) return ToGrpcStatus(who.status());
  return inner_.GetJob(context, request, response);
}

grpc::Status AuthorizedJobService::ListJobs(grpc::ServerContext* context, const v1::ListJobsRequest* request,
                                            v1::ListJobsResponse* response) {
  absl::StatusOr<auth::Identity> who = gate_.Authorize(*context, absl::StrCat(kJobService, "ListJobs"), *request);
  if (!who.ok()) return ToGrpcStatus(who.status());
  return inner_.ListJobs(context, request, response);
}

grpc::Status AuthorizedJobService::CancelJob(grpc::ServerContext* context, const v1::CancelJobRequest* request,
                                             v1::Job* response) {
  absl::StatusOr<auth::Identity> who = gate_.Authorize(*context, absl::StrCat(kJobService, "CancelJob"), *request);
  if (!who.ok()) return ToGrpcStatus(who.status());
  return inner_.CancelJob(context, request, response);
}

grpc::Status AuthorizedJobService::DeleteJob(grpc::ServerContext* context,
                                             const v1::DeleteJobRequest* request,
                                             v1::DeleteJobResponse* response) {
  absl::StatusOr<auth::Identity> who =
      gate_.Authorize(*context, absl::StrCat(kJobService, "DeleteJob"), *request);
  if (!who.ok()) return ToGrpcStatus(who.status());
  return inner_.DeleteJob(context, request, response);
}

grpc::Status AuthorizedJobService::SubmitTrainingJob(grpc::ServerContext* context,
                                                     const v1::SubmitTrainingJobRequest* request,
                                                     v1::Job* response) {
  absl::StatusOr<auth::Identity> who =
      gate_.Authorize(*context, absl::StrCat(kJobService, "SubmitTrainingJob"), *request);
  if (!who.ok()) return ToGrpcStatus(who.status());
  v1::SubmitTrainingJobRequest owned = *request;
  owned.mutable_job()->set_owner(who->user);
  owned.mutable_job()->clear_grants();
  return inner_.SubmitTrainingJob(context, &owned, response);
}

grpc::Status AuthorizedJobService::StreamLogs(grpc::ServerContext* context,
                                              const v1::StreamLogsRequest* request,
                                              grpc::ServerWriter<v1::LogLine>* writer) {
  absl::StatusOr<auth::Identity> who =
      gate_.Authorize(*context, absl::StrCat(kJobService, "StreamLogs"), *request);
  if (!who.ok()) return ToGrpcStatus(who.status());
  return inner_.StreamLogs(context, request, writer);
}

grpc::Status AuthorizedAgentService::ReportMeasurements(grpc::ServerContext* context, const v1::ReportMeasurementsRequest* request,
                                                        v1::ReportMeasurementsResponse* response) {
  absl::StatusOr<auth::Identity> who = gate_.Authorize(*context, absl::StrCat(kAgentService, "ReportMeasurements"), *request);
  if (!who.ok()) return ToGrpcStatus(who.status());
  return inner_.ReportMeasurements(context, request, response);
}

grpc::Status AuthorizedAgentService::ReportExit(grpc::ServerContext* context, const v1::ReportExitRequest* request,
                                                v1::ReportExitResponse* response) {
  absl::StatusOr<auth::Identity> who = gate_.Authorize(*context, absl::StrCat(kAgentService, "ReportExit"), *request);
  if (!who.ok()) return ToGrpcStatus(who.status());
  return inner_.ReportExit(context, request, response);
}

grpc::Status AuthorizedAgentService::Heartbeat(grpc::ServerContext* context, const v1::HeartbeatRequest* request,
                                               v1::HeartbeatResponse* response) {
  absl::StatusOr<auth::Identity> who = gate_.Authorize(*context, absl::StrCat(kAgentService, "Heartbeat"), *request);
  if (!who.ok()) return ToGrpcStatus(who.status());
  return inner_.Heartbeat(context, request, response);
}

}  // namespace vernier::tuner
