#include "tuner/authorized_services.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "auth/secret_redaction.h"
#include "vernier/grpc_status.h"

namespace vernier::tuner {
namespace {

constexpr char kStudyService[] = "/vernier.v1.StudyService/";
constexpr char kJobService[] = "/vernier.v1.JobService/";
constexpr char kAgentService[] = "/vernier.v1.AgentService/";

void RedactArguments(google::protobuf::RepeatedPtrField<std::string>& arguments) {
  const std::vector<std::string> redacted =
      auth::RedactCommandLine({arguments.begin(), arguments.end()});
  for (int i = 0; i < arguments.size(); ++i) arguments[i] = redacted[i];
}

// A job as `who` reads it: the secrets of its command line (`--api-key
// VALUE`, `--token=VALUE`, `HF_TOKEN=VALUE`: auth::RedactCommandLine) and
// of its trainingInput.args are shown to its owner and to admins only.
void HideCommandSecrets(const auth::Identity& who, v1::Job& job) {
  if (who.role == v1::ADMIN || (!job.owner().empty() && job.owner() == who.user)) return;
  RedactArguments(*job.mutable_command());
  if (job.has_training_input()) RedactArguments(*job.mutable_training_input()->mutable_args());
}

}  // namespace

// Every method below: the gate first, then the handler.

grpc::Status AuthorizedStudyService::GetStudy(grpc::ServerContext* context, const v1::GetStudyRequest* request,
                                              v1::Study* response) {
  return gate_.Guard(*context, absl::StrCat(kStudyService, "GetStudy"), *request, [&](const auth::Identity&) {
    return inner_.GetStudy(context, request, response);
  });
}

grpc::Status AuthorizedStudyService::ListStudies(grpc::ServerContext* context, const v1::ListStudiesRequest* request,
                                                 v1::ListStudiesResponse* response) {
  return gate_.Guard(*context, absl::StrCat(kStudyService, "ListStudies"), *request, [&](const auth::Identity&) {
    return inner_.ListStudies(context, request, response);
  });
}

grpc::Status AuthorizedStudyService::DeleteStudy(grpc::ServerContext* context, const v1::DeleteStudyRequest* request,
                                                 v1::DeleteStudyResponse* response) {
  return gate_.Guard(*context, absl::StrCat(kStudyService, "DeleteStudy"), *request, [&](const auth::Identity&) {
    return inner_.DeleteStudy(context, request, response);
  });
}

grpc::Status AuthorizedStudyService::SuggestTrials(grpc::ServerContext* context, const v1::SuggestTrialsRequest* request,
                                                   v1::SuggestTrialsResponse* response) {
  return gate_.Guard(*context, absl::StrCat(kStudyService, "SuggestTrials"), *request, [&](const auth::Identity&) {
    return inner_.SuggestTrials(context, request, response);
  });
}

grpc::Status AuthorizedStudyService::CreateTrial(grpc::ServerContext* context, const v1::CreateTrialRequest* request,
                                                 v1::Trial* response) {
  return gate_.Guard(*context, absl::StrCat(kStudyService, "CreateTrial"), *request, [&](const auth::Identity&) {
    return inner_.CreateTrial(context, request, response);
  });
}

grpc::Status AuthorizedStudyService::GetTrial(grpc::ServerContext* context, const v1::GetTrialRequest* request,
                                              v1::Trial* response) {
  return gate_.Guard(*context, absl::StrCat(kStudyService, "GetTrial"), *request, [&](const auth::Identity&) {
    return inner_.GetTrial(context, request, response);
  });
}

grpc::ServerUnaryReactor* AuthorizedStudyService::ListTrials(grpc::CallbackServerContext* context,
                                                             const grpc::ByteBuffer* request_bytes,
                                                             grpc::ByteBuffer* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  v1::ListTrialsRequest request;
  grpc::ByteBuffer request_copy(*request_bytes);
  if (!grpc::SerializationTraits<v1::ListTrialsRequest>::Deserialize(&request_copy, &request)
           .ok()) {
    reactor->Finish(
        grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                     "the ListTrials request does not parse as vernier.v1.ListTrialsRequest"));
    return reactor;
  }
  list_trials_readers_.Run(
      absl::StrCat(list_trials_calls_.fetch_add(1)),
      [this, context, reactor, response, request = std::move(request)] {
        reactor->Finish(gate_.Guard(
            *context, absl::StrCat(kStudyService, "ListTrials"), request,
            [&](const auth::Identity&) { return inner_.ListTrialsBytes(request, response); }));
      });
  return reactor;
}

grpc::Status AuthorizedStudyService::CompleteTrial(grpc::ServerContext* context, const v1::CompleteTrialRequest* request,
                                                   v1::Trial* response) {
  return gate_.Guard(*context, absl::StrCat(kStudyService, "CompleteTrial"), *request, [&](const auth::Identity&) {
    return inner_.CompleteTrial(context, request, response);
  });
}

grpc::Status AuthorizedStudyService::StopTrial(grpc::ServerContext* context, const v1::StopTrialRequest* request,
                                               v1::Trial* response) {
  return gate_.Guard(*context, absl::StrCat(kStudyService, "StopTrial"), *request, [&](const auth::Identity&) {
    return inner_.StopTrial(context, request, response);
  });
}

grpc::Status AuthorizedStudyService::CheckEarlyStopping(grpc::ServerContext* context, const v1::CheckEarlyStoppingRequest* request,
                                                        v1::CheckEarlyStoppingResponse* response) {
  return gate_.Guard(*context, absl::StrCat(kStudyService, "CheckEarlyStopping"), *request, [&](const auth::Identity&) {
    return inner_.CheckEarlyStopping(context, request, response);
  });
}

grpc::Status AuthorizedStudyService::ListOptimalTrials(grpc::ServerContext* context, const v1::ListOptimalTrialsRequest* request,
                                                       v1::ListOptimalTrialsResponse* response) {
  return gate_.Guard(*context, absl::StrCat(kStudyService, "ListOptimalTrials"), *request, [&](const auth::Identity&) {
    return inner_.ListOptimalTrials(context, request, response);
  });
}

grpc::Status AuthorizedStudyService::ParseStudySpec(grpc::ServerContext* context, const v1::ParseStudySpecRequest* request,
                                                    v1::ParseStudySpecResponse* response) {
  return gate_.Guard(*context, absl::StrCat(kStudyService, "ParseStudySpec"), *request, [&](const auth::Identity&) {
    return inner_.ParseStudySpec(context, request, response);
  });
}

grpc::Status AuthorizedStudyService::SetStudyUserAttributes(
    grpc::ServerContext* context, const v1::SetStudyUserAttributesRequest* request,
    v1::Study* response) {
  return gate_.Guard(*context, absl::StrCat(kStudyService, "SetStudyUserAttributes"), *request,
                     [&](const auth::Identity&) {
                       return inner_.SetStudyUserAttributes(context, request, response);
                     });
}

grpc::Status AuthorizedStudyService::SetTrialUserAttributes(
    grpc::ServerContext* context, const v1::SetTrialUserAttributesRequest* request,
    v1::Trial* response) {
  return gate_.Guard(*context, absl::StrCat(kStudyService, "SetTrialUserAttributes"), *request,
                     [&](const auth::Identity&) {
                       return inner_.SetTrialUserAttributes(context, request, response);
                     });
}

grpc::Status AuthorizedStudyService::CreateStudy(grpc::ServerContext* context,
                                                 const v1::CreateStudyRequest* request,
                                                 v1::Study* response) {
  return gate_.Guard(*context, absl::StrCat(kStudyService, "CreateStudy"), *request, [&](const auth::Identity& who) {
    v1::CreateStudyRequest owned = *request;
    owned.mutable_study()->set_owner(who.user);
    owned.mutable_study()->clear_grants();
    return inner_.CreateStudy(context, &owned, response);
  });
}

grpc::ServerUnaryReactor* AuthorizedStudyService::AddMeasurement(
    grpc::CallbackServerContext* context, const v1::AddMeasurementRequest* request,
    v1::Trial* response) {
  // Guard for a callback handler: the outcome comes later, on the store's
  // thread, and is recorded there.
  const std::string method = absl::StrCat(kStudyService, "AddMeasurement");
  const RpcAuthorizer::Verdict verdict = gate_.Decide(*context, method, *request);
  if (!verdict.status.ok()) {
    const grpc::Status refused = ToGrpcStatus(verdict.status);
    gate_.Audit(*context, method, *request, verdict, refused);
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    reactor->Finish(refused);
    return reactor;
  }
  if (!gate_.Audits(verdict)) return inner_.AddMeasurementThen(context, request, response, nullptr);
  return inner_.AddMeasurementThen(
      context, request, response,
      [this, context, request, verdict, method](const grpc::Status& outcome) {
        gate_.Audit(*context, method, *request, verdict, outcome);
      });
}

grpc::Status AuthorizedJobService::GetJob(grpc::ServerContext* context, const v1::GetJobRequest* request,
                                          v1::GetJobResponse* response) {
  return gate_.Guard(*context, absl::StrCat(kJobService, "GetJob"), *request,
                     [&](const auth::Identity& who) {
                       const grpc::Status status = inner_.GetJob(context, request, response);
                       HideCommandSecrets(who, *response->mutable_job());
                       return status;
                     });
}

grpc::Status AuthorizedJobService::ListTrialRuns(grpc::ServerContext* context,
                                                 const v1::ListTrialRunsRequest* request,
                                                 v1::ListTrialRunsResponse* response) {
  return gate_.Guard(
      *context, absl::StrCat(kJobService, "ListTrialRuns"), *request,
      [&](const auth::Identity&) { return inner_.ListTrialRuns(context, request, response); });
}

grpc::Status AuthorizedJobService::ListJobs(grpc::ServerContext* context, const v1::ListJobsRequest* request,
                                            v1::ListJobsResponse* response) {
  return gate_.Guard(*context, absl::StrCat(kJobService, "ListJobs"), *request,
                     [&](const auth::Identity& who) {
                       const grpc::Status status = inner_.ListJobs(context, request, response);
                       for (v1::Job& job : *response->mutable_jobs()) HideCommandSecrets(who, job);
                       return status;
                     });
}

grpc::Status AuthorizedJobService::CancelJob(grpc::ServerContext* context, const v1::CancelJobRequest* request,
                                             v1::Job* response) {
  return gate_.Guard(*context, absl::StrCat(kJobService, "CancelJob"), *request,
                     [&](const auth::Identity& who) {
                       const grpc::Status status = inner_.CancelJob(context, request, response);
                       HideCommandSecrets(who, *response);
                       return status;
                     });
}

grpc::Status AuthorizedJobService::DeleteJob(grpc::ServerContext* context,
                                             const v1::DeleteJobRequest* request,
                                             v1::DeleteJobResponse* response) {
  return gate_.Guard(*context, absl::StrCat(kJobService, "DeleteJob"), *request,
                     [&](const auth::Identity&) {
                       return inner_.DeleteJob(context, request, response);
                     });
}

grpc::Status AuthorizedJobService::SubmitTrainingJob(grpc::ServerContext* context,
                                                     const v1::SubmitTrainingJobRequest* request,
                                                     v1::Job* response) {
  return gate_.Guard(*context, absl::StrCat(kJobService, "SubmitTrainingJob"), *request, [&](const auth::Identity& who) {
    v1::SubmitTrainingJobRequest owned = *request;
    owned.mutable_job()->set_owner(who.user);
    owned.mutable_job()->clear_grants();
    return inner_.SubmitTrainingJob(context, &owned, response);
  });
}

grpc::Status AuthorizedJobService::StreamLogs(grpc::ServerContext* context,
                                              const v1::StreamLogsRequest* request,
                                              grpc::ServerWriter<v1::LogLine>* writer) {
  const std::string method = absl::StrCat(kJobService, "StreamLogs");
  return gate_.Guard(*context, method, *request, [&](const auth::Identity&) {
    // A stream that follows a running job asks the gate again as it goes:
    // a token revoked meanwhile ends it (UNAUTHENTICATED).
    return inner_.FollowLogs(context, request, writer,
                             [&] { return gate_.Decide(*context, method, *request).status; });
  });
}

grpc::Status AuthorizedAgentService::ReportMeasurements(grpc::ServerContext* context, const v1::ReportMeasurementsRequest* request,
                                                        v1::ReportMeasurementsResponse* response) {
  return gate_.Guard(*context, absl::StrCat(kAgentService, "ReportMeasurements"), *request, [&](const auth::Identity&) {
    return inner_.ReportMeasurements(context, request, response);
  });
}

grpc::Status AuthorizedAgentService::ReportExit(grpc::ServerContext* context, const v1::ReportExitRequest* request,
                                                v1::ReportExitResponse* response) {
  return gate_.Guard(*context, absl::StrCat(kAgentService, "ReportExit"), *request, [&](const auth::Identity&) {
    return inner_.ReportExit(context, request, response);
  });
}

grpc::Status AuthorizedAgentService::Heartbeat(grpc::ServerContext* context, const v1::HeartbeatRequest* request,
                                               v1::HeartbeatResponse* response) {
  return gate_.Guard(*context, absl::StrCat(kAgentService, "Heartbeat"), *request, [&](const auth::Identity&) {
    return inner_.Heartbeat(context, request, response);
  });
}

}  // namespace vernier::tuner
