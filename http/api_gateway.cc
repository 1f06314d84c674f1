#include "http/api_gateway.h"

#include <google/protobuf/util/json_util.h>
#include <grpcpp/client_context.h>

#include <chrono>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "http/grpc_call.h"
#include "http/http_status_mapping.h"
#include "http/request_fields.h"

namespace vernier::http {
namespace {

// A path segment: a project, job id, study name or trial id.
constexpr char kSegment[] = "([^/:]+)";

std::string ToJson(const google::protobuf::Message& message) {
  std::string json;
  // Serialising our messages (no Any fields) cannot fail.
  (void)google::protobuf::util::MessageToJsonString(message, &json);
  return json;
}

// Every query parameter sets the field of its name in `request`.
absl::Status ApplyQuery(const ApiRequest& http, google::protobuf::Message& request) {
  for (const auto& [name, value] : http.query) {
    VERNIER_RETURN_IF_ERROR(SetFieldFromText(name, value, request));
  }
  return absl::OkStatus();
}

// The request body, in the proto3 JSON mapping, into `message`; an empty
// body leaves it as it is.
absl::Status ParseBody(const ApiRequest& http, google::protobuf::Message& message) {
  if (http.body.empty()) return absl::OkStatus();
  const auto parsed = google::protobuf::util::JsonStringToMessage(http.body, &message);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("the request body is not a ",
                                                   message.GetDescriptor()->full_name(),
                                                   " in JSON: ", parsed.message().ToString()));
  }
  return absl::OkStatus();
}

// A path segment into an integer field (a trial id).
absl::Status SetSegment(absl::string_view field, const std::string& segment,
                        google::protobuf::Message& request) {
  if (!SetFieldFromText(field, segment, request).ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the path's ", field, " \"", segment, "\" is not an integer"));
  }
  return absl::OkStatus();
}

// Calls `method` with the caller's credentials.
template <typename Stub, typename Request, typename Response>
absl::StatusOr<Response> Call(Stub& stub,
                              grpc::Status (Stub::*method)(grpc::ClientContext*, const Request&,
                                                           Response*),
                              const Request& request, const ApiRequest& http) {
  return CallWithCredentials(stub, method, request, http.authorization, http.client_address);
}

template <typename Response>
absl::StatusOr<std::string> Json(absl::StatusOr<Response> response) {
  if (!response.ok()) return response.status();
  return ToJson(*response);
}

}  // namespace

ApiGateway::ApiGateway(std::shared_ptr<grpc::Channel> channel)
    : auth_(v1::AuthService::NewStub(channel)),
      jobs_(v1::JobService::NewStub(channel)),
      studies_(v1::StudyService::NewStub(channel)) {
  AddJobRoutes();
  AddStudyRoutes();
  AddIdentityRoute();
}

void ApiGateway::AddIdentityRoute() {
  // Who the caller is (user, role): the dashboard offers what they may do.
  v1::AuthService::Stub& stub = *auth_;
  routes_.push_back({"GET", std::regex("/v1/whoami"),
                     [&stub](const Captures&, const ApiRequest& http)
                         -> absl::StatusOr<std::string> {
                       v1::WhoAmIRequest request;
                       return Json(Call(stub, &v1::AuthService::Stub::WhoAmI, request, http));
                     }});
}

bool ApiGateway::IsApiPath(const std::string& path) { return path.starts_with("/v1/"); }

absl::Status ApiGateway::Authenticate(const ApiRequest& request) const {
  return Call(*auth_, &v1::AuthService::Stub::WhoAmI, v1::WhoAmIRequest(), request).status();
}

void ApiGateway::AddJobRoutes() {
  // AI Platform's shapes: /v1/projects/PROJECT/jobs; any project names this
  // server.
  const std::string jobs = absl::StrCat("/v1/projects/", kSegment, "/jobs");
  const std::string job = absl::StrCat(jobs, "/", kSegment);
  v1::JobService::Stub& stub = *jobs_;
  routes_.push_back({"GET", std::regex(jobs), [&stub](const Captures&, const ApiRequest& http)
                         -> absl::StatusOr<std::string> {
                       v1::ListJobsRequest request;
                       VERNIER_RETURN_IF_ERROR(ApplyQuery(http, request));
                       return Json(Call(stub, &v1::JobService::Stub::ListJobs, request, http));
                     }});
  routes_.push_back({"POST", std::regex(jobs), [&stub](const Captures&, const ApiRequest& http)
                          -> absl::StatusOr<std::string> {
                       v1::SubmitTrainingJobRequest request;
                       VERNIER_RETURN_IF_ERROR(ParseBody(http, *request.mutable_job()));
                       VERNIER_RETURN_IF_ERROR(ApplyQuery(http, request));
                       return Json(
                           Call(stub, &v1::JobService::Stub::SubmitTrainingJob, request, http));
                     }});
  routes_.push_back({"GET", std::regex(job), [&stub](const Captures& captures,
                                                     const ApiRequest& http)
                         -> absl::StatusOr<std::string> {
                       v1::GetJobRequest request;
                       request.set_job_id(captures[1]);
                       VERNIER_RETURN_IF_ERROR(ApplyQuery(http, request));
                       VERNIER_ASSIGN_OR_RETURN(
                           v1::GetJobResponse response,
                           Call(stub, &v1::JobService::Stub::GetJob, request, http));
                       return ToJson(response.job());
                     }});
  routes_.push_back({"GET", std::regex(absl::StrCat(job, ":describe")),
                     [&stub](const Captures& captures,
                             const ApiRequest& http) -> absl::StatusOr<std::string> {
                       v1::GetJobRequest request;
                       request.set_job_id(captures[1]);
                       VERNIER_RETURN_IF_ERROR(ApplyQuery(http, request));
                       return Json(Call(stub, &v1::JobService::Stub::GetJob, request, http));
                     }});
  routes_.push_back({"DELETE", std::regex(job),
                     [&stub](const Captures& captures,
                             const ApiRequest& http) -> absl::StatusOr<std::string> {
                       v1::DeleteJobRequest request;
                       request.set_job_id(captures[1]);
                       VERNIER_RETURN_IF_ERROR(ApplyQuery(http, request));
                       return Json(Call(stub, &v1::JobService::Stub::DeleteJob, request, http));
                     }});
  routes_.push_back({"POST", std::regex(absl::StrCat(job, ":cancel")),
                     [&stub](const Captures& captures,
                             const ApiRequest& http) -> absl::StatusOr<std::string> {
                       v1::CancelJobRequest request;
                       request.set_job_id(captures[1]);
                       VERNIER_RETURN_IF_ERROR(ApplyQuery(http, request));
                       return Json(Call(stub, &v1::JobService::Stub::CancelJob, request, http));
                     }});
}

void ApiGateway::AddStudyRoutes() {
  const std::string studies = "/v1/studies";
  const std::string study = absl::StrCat(studies, "/", kSegment);
  const std::string trials = absl::StrCat(study, "/trials");
  const std::string trial = absl::StrCat(trials, "/", kSegment);
  v1::StudyService::Stub& stub = *studies_;
  routes_.push_back({"GET", std::regex(studies), [&stub](const Captures&, const ApiRequest& http)
                         -> absl::StatusOr<std::string> {
                       v1::ListStudiesRequest request;
                       VERNIER_RETURN_IF_ERROR(ApplyQuery(http, request));
                       return Json(Call(stub, &v1::StudyService::Stub::ListStudies, request, http));
                     }});
  routes_.push_back({"POST", std::regex(studies), [&stub](const Captures&, const ApiRequest& http)
                          -> absl::StatusOr<std::string> {
                       v1::CreateStudyRequest request;
                       VERNIER_RETURN_IF_ERROR(ParseBody(http, *request.mutable_study()));
                       VERNIER_RETURN_IF_ERROR(ApplyQuery(http, request));
                       return Json(Call(stub, &v1::StudyService::Stub::CreateStudy, request, http));
                     }});
  routes_.push_back({"GET", std::regex(study), [&stub](const Captures& captures,
                                                       const ApiRequest& http)
                         -> absl::StatusOr<std::string> {
                       v1::GetStudyRequest request;
                       request.set_study_name(captures[0]);
                       VERNIER_RETURN_IF_ERROR(ApplyQuery(http, request));
                       return Json(Call(stub, &v1::StudyService::Stub::GetStudy, request, http));
                     }});
  routes_.push_back({"DELETE", std::regex(study), [&stub](const Captures& captures,
                                                          const ApiRequest& http)
                            -> absl::StatusOr<std::string> {
                       v1::DeleteStudyRequest request;
                       request.set_study_name(captures[0]);
                       VERNIER_RETURN_IF_ERROR(ApplyQuery(http, request));
                       return Json(Call(stub, &v1::StudyService::Stub::DeleteStudy, request, http));
                     }});
  routes_.push_back({"GET", std::regex(trials), [&stub](const Captures& captures,
                                                        const ApiRequest& http)
                         -> absl::StatusOr<std::string> {
                       v1::ListTrialsRequest request;
                       request.set_study_name(captures[0]);
                       VERNIER_RETURN_IF_ERROR(ApplyQuery(http, request));
                       return Json(Call(stub, &v1::StudyService::Stub::ListTrials, request, http));
                     }});
  routes_.push_back({"GET", std::regex(absl::StrCat(trials, ":optimal")),
                     [&stub](const Captures& captures,
                             const ApiRequest& http) -> absl::StatusOr<std::string> {
                       v1::ListOptimalTrialsRequest request;
                       request.set_study_name(captures[0]);
                       VERNIER_RETURN_IF_ERROR(ApplyQuery(http, request));
                       return Json(
                           Call(stub, &v1::StudyService::Stub::ListOptimalTrials, request, http));
                     }});
  routes_.push_back({"GET", std::regex(trial), [&stub](const Captures& captures,
                                                       const ApiRequest& http)
                         -> absl::StatusOr<std::string> {
                       v1::GetTrialRequest request;
                       request.set_study_name(captures[0]);
                       VERNIER_RETURN_IF_ERROR(SetSegment("trial_id", captures[1], request));
                       VERNIER_RETURN_IF_ERROR(ApplyQuery(http, request));
                       return Json(Call(stub, &v1::StudyService::Stub::GetTrial, request, http));
                     }});
  routes_.push_back({"POST", std::regex(absl::StrCat(trials, ":suggest")),
                     [&stub](const Captures& captures,
                             const ApiRequest& http) -> absl::StatusOr<std::string> {
                       v1::SuggestTrialsRequest request;
                       VERNIER_RETURN_IF_ERROR(ParseBody(http, request));
                       request.set_study_name(captures[0]);
                       VERNIER_RETURN_IF_ERROR(ApplyQuery(http, request));
                       return Json(
                           Call(stub, &v1::StudyService::Stub::SuggestTrials, request, http));
                     }});
  routes_.push_back({"POST", std::regex(trials), [&stub](const Captures& captures,
                                                         const ApiRequest& http)
                          -> absl::StatusOr<std::string> {
                       v1::CreateTrialRequest request;
                       VERNIER_RETURN_IF_ERROR(ParseBody(http, *request.mutable_trial()));
                       request.set_study_name(captures[0]);
                       VERNIER_RETURN_IF_ERROR(ApplyQuery(http, request));
                       return Json(Call(stub, &v1::StudyService::Stub::CreateTrial, request, http));
                     }});
  routes_.push_back({"POST", std::regex(absl::StrCat(trial, ":addMeasurement")),
                     [&stub](const Captures& captures,
                             const ApiRequest& http) -> absl::StatusOr<std::string> {
                       v1::AddMeasurementRequest request;
                       VERNIER_RETURN_IF_ERROR(ParseBody(http, *request.mutable_measurement()));
                       request.set_study_name(captures[0]);
                       VERNIER_RETURN_IF_ERROR(SetSegment("trial_id", captures[1], request));
                       VERNIER_RETURN_IF_ERROR(ApplyQuery(http, request));
                       return Json(
                           Call(stub, &v1::StudyService::Stub::AddMeasurement, request, http));
                     }});
  routes_.push_back({"POST", std::regex(absl::StrCat(trial, ":addMeasurements")),
                     [&stub](const Captures& captures,
                             const ApiRequest& http) -> absl::StatusOr<std::string> {
                       v1::AddMeasurementRequest request;
                       VERNIER_RETURN_IF_ERROR(ParseBody(http, request));
                       request.set_study_name(captures[0]);
                       VERNIER_RETURN_IF_ERROR(SetSegment("trial_id", captures[1], request));
                       VERNIER_RETURN_IF_ERROR(ApplyQuery(http, request));
                       return Json(
                           Call(stub, &v1::StudyService::Stub::AddMeasurement, request, http));
                     }});
  routes_.push_back({"POST", std::regex(absl::StrCat(trial, ":complete")),
                     [&stub](const Captures& captures,
                             const ApiRequest& http) -> absl::StatusOr<std::string> {
                       v1::CompleteTrialRequest request;
                       VERNIER_RETURN_IF_ERROR(ParseBody(http, request));
                       request.set_study_name(captures[0]);
                       VERNIER_RETURN_IF_ERROR(SetSegment("trial_id", captures[1], request));
                       VERNIER_RETURN_IF_ERROR(ApplyQuery(http, request));
                       return Json(
                           Call(stub, &v1::StudyService::Stub::CompleteTrial, request, http));
                     }});
  routes_.push_back({"POST", std::regex(absl::StrCat(study, ":setUserAttributes")),
                     [&stub](const Captures& captures,
                             const ApiRequest& http) -> absl::StatusOr<std::string> {
                       v1::SetStudyUserAttributesRequest request;
                       VERNIER_RETURN_IF_ERROR(ParseBody(http, request));
                       request.set_study_name(captures[0]);
                       return Json(Call(stub, &v1::StudyService::Stub::SetStudyUserAttributes,
                                        request, http));
                     }});
  routes_.push_back({"POST", std::regex(absl::StrCat(trial, ":setUserAttributes")),
                     [&stub](const Captures& captures,
                             const ApiRequest& http) -> absl::StatusOr<std::string> {
                       v1::SetTrialUserAttributesRequest request;
                       VERNIER_RETURN_IF_ERROR(ParseBody(http, request));
                       request.set_study_name(captures[0]);
                       VERNIER_RETURN_IF_ERROR(SetSegment("trial_id", captures[1], request));
                       return Json(Call(stub, &v1::StudyService::Stub::SetTrialUserAttributes,
                                        request, http));
                     }});
  routes_.push_back({"POST", std::regex(absl::StrCat(trial, ":stop")),
                     [&stub](const Captures& captures,
                             const ApiRequest& http) -> absl::StatusOr<std::string> {
                       v1::StopTrialRequest request;
                       request.set_study_name(captures[0]);
                       VERNIER_RETURN_IF_ERROR(SetSegment("trial_id", captures[1], request));
                       VERNIER_RETURN_IF_ERROR(ApplyQuery(http, request));
                       return Json(Call(stub, &v1::StudyService::Stub::StopTrial, request, http));
                     }});
}

ApiResponse ApiGateway::Handle(const ApiRequest& request) const {
  bool path_known = false;
  for (const Route& route : routes_) {
    std::smatch match;
    if (!std::regex_match(request.path, match, route.pattern)) continue;
    path_known = true;
    if (route.method != request.method) continue;
    Captures captures;
    for (size_t i = 1; i < match.size(); ++i) captures.push_back(match[i].str());
    absl::StatusOr<std::string> body = route.handler(captures, request);
    if (!body.ok()) return {HttpStatusOf(body.status()), ErrorBody(body.status())};
    return {200, *std::move(body)};
  }
  const absl::Status status =
      path_known ? absl::UnimplementedError(absl::StrCat(request.path, " does not answer ",
                                                         request.method))
                 : absl::NotFoundError(absl::StrCat("no API at ", request.path,
                                                    " (see docs/http-api.md)"));
  return {HttpStatusOf(status), ErrorBody(status)};
}

}  // namespace vernier::http
