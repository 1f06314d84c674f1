#include "tuner/study_service_impl.h"

#include <memory>
#include <span>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/status_macros.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/wire_format_lite.h"
#include "tuner/config/training_input_parser.h"
#include "tuner/list_page_budget.h"
#include "tuner/storage/page_token.h"
#include "vernier/grpc_status.h"

namespace vernier::tuner {
namespace {

absl::Status RequireStudyName(const std::string& study_name) {
  if (study_name.empty()) return absl::InvalidArgumentError("study_name is required");
  return absl::OkStatus();
}

absl::Status RequireTrial(const std::string& study_name, int64_t trial_id) {
  if (absl::Status status = RequireStudyName(study_name); !status.ok()) return status;
  if (trial_id <= 0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("trial_id %d is not a trial id (ids start at 1)", trial_id));
  }
  return absl::OkStatus();
}

// An AddMeasurementRequest carries one measurement or a batch of at most
// kMaxMeasurementsPerCall, not both.
constexpr int kMaxMeasurementsPerCall = 1000;

absl::Status RequireMeasurements(const v1::AddMeasurementRequest& request) {
  if (request.has_measurement() && request.measurements_size() > 0) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "give measurement or measurements, not both (measurements holds %d)",
        request.measurements_size()));
  }
  if (!request.has_measurement() && request.measurements_size() == 0) {
    return absl::InvalidArgumentError("measurement is required (or measurements, for several)");
  }
  if (request.measurements_size() > kMaxMeasurementsPerCall) {
    return absl::InvalidArgumentError(
        absl::StrFormat("measurements holds %d; at most %d go in one call",
                        request.measurements_size(), kMaxMeasurementsPerCall));
  }
  return absl::OkStatus();
}

// `status` with `what` in front of its message, its code kept.
absl::Status Annotated(const absl::Status& status, const char* what) {
  return absl::Status(status.code(), absl::StrCat(what, ": ", status.message()));
}

// Runs `body` (an absl::Status-returning handler) and maps its status.
template <typename Body>
grpc::Status Handle(Body body) {
  return ToGrpcStatus(body());
}

// Moves the manager's result into the gRPC response, or passes its error on.
template <typename T>
absl::Status Reply(absl::StatusOr<T> result, T* response) {
  if (!result.ok()) return result.status();
  *response = *std::move(result);
  return absl::OkStatus();
}

// A serialized v1::ListTrialsResponse: each trial's bytes as an element of
// `trials`, then the token, as the message's own serialization lays them.
std::string ListTrialsAnswer(const std::vector<storage::SerializedTrial>& trials,
                             const std::string& next_page_token) {
  using google::protobuf::internal::WireFormatLite;
  std::string answer;
  {
    google::protobuf::io::StringOutputStream stream(&answer);
    google::protobuf::io::CodedOutputStream out(&stream);
    for (const storage::SerializedTrial& trial : trials) {
      WireFormatLite::WriteBytes(v1::ListTrialsResponse::kTrialsFieldNumber, trial.bytes, &out);
    }
    if (!next_page_token.empty()) {
      WireFormatLite::WriteString(v1::ListTrialsResponse::kNextPageTokenFieldNumber,
                                  next_page_token, &out);
    }
  }
  return answer;
}

// The name error messages give a text that came without one.
constexpr char kUnnamedSpec[] = "<spec>";

absl::StatusOr<config::SpecFormat> SpecFormatOf(const v1::ParseStudySpecRequest& request,
                                                const std::string& file_name) {
  switch (request.format()) {
    case v1::SPEC_FORMAT_UNSPECIFIED:
      return config::SpecFormatForFileName(file_name);
    case v1::SPEC_FORMAT_YAML:
      return config::SpecFormat::kYaml;
    case v1::SPEC_FORMAT_JSON:
      return config::SpecFormat::kJson;
    default:
      return absl::InvalidArgumentError(
          absl::StrFormat("format: unknown spec format %d; allowed: SPEC_FORMAT_UNSPECIFIED, "
                          "SPEC_FORMAT_YAML, SPEC_FORMAT_JSON",
                          static_cast<int>(request.format())));
  }
}

}  // namespace

grpc::Status StudyServiceImpl::CreateStudy(grpc::ServerContext*,
                                           const v1::CreateStudyRequest* request,
                                           v1::Study* response) {
  return Handle([&]() -> absl::Status {
    absl::StatusOr<v1::Study> study = studies_.CreateStudy(request->study());
    return Reply(std::move(study), response);
  });
}

grpc::Status StudyServiceImpl::GetStudy(grpc::ServerContext*, const v1::GetStudyRequest* request,
                                        v1::Study* response) {
  return Handle([&]() -> absl::Status {
    if (absl::Status status = RequireStudyName(request->study_name()); !status.ok()) return status;
    absl::StatusOr<v1::Study> study = studies_.GetStudy(request->study_name());
    return Reply(std::move(study), response);
  });
}

grpc::Status StudyServiceImpl::ListStudies(grpc::ServerContext*,
                                           const v1::ListStudiesRequest* request,
                                           v1::ListStudiesResponse* response) {
  return Handle([&]() -> absl::Status {
    absl::StatusOr<storage::Page<v1::Study>> page =
        studies_.ListStudies(request->page_size(), request->page_token());
    if (!page.ok()) return page.status();
    if (const size_t fit = ItemsWithinListBudget(page->items); fit < page->items.size()) {
      page->items.resize(fit);
      page->next_page_token = storage::EncodeStudyPageToken(page->items.back().name());
    }
    for (v1::Study& study : page->items) *response->add_studies() = std::move(study);
    response->set_next_page_token(page->next_page_token);
    return absl::OkStatus();
  });
}

grpc::Status StudyServiceImpl::DeleteStudy(grpc::ServerContext*,
                                           const v1::DeleteStudyRequest* request,
                                           v1::DeleteStudyResponse*) {
  return Handle([&]() -> absl::Status {
    if (absl::Status status = RequireStudyName(request->study_name()); !status.ok()) return status;
    return studies_.DeleteStudy(request->study_name());
  });
}

grpc::Status StudyServiceImpl::SuggestTrials(grpc::ServerContext*,
                                             const v1::SuggestTrialsRequest* request,
                                             v1::SuggestTrialsResponse* response) {
  return Handle([&]() -> absl::Status {
    if (absl::Status status = RequireStudyName(request->study_name()); !status.ok()) return status;
    // The study as the completion read it, which the suggestion then need
    // not read again.
    std::optional<v1::Study> study;
    if (request->has_complete_trial()) {
      v1::CompleteTrialRequest completion = request->complete_trial();
      if (completion.study_name().empty()) {
        completion.set_study_name(request->study_name());
      } else if (completion.study_name() != request->study_name()) {
        return absl::InvalidArgumentError(absl::StrFormat(
            "complete_trial.study_name \"%s\" is not the study suggested from, \"%s\"; "
            "a suggestion completes a trial of its own study only",
            completion.study_name(), request->study_name()));
      }
      absl::StatusOr<v1::Trial> completed = Complete(completion, &study);
      if (!completed.ok()) {
        return Annotated(completed.status(), "complete_trial (nothing was suggested)");
      }
      *response->mutable_completed_trial() = *std::move(completed);
    }
    absl::StatusOr<SuggestResult> result =
        studies_.SuggestTrials(request->study_name(), request->count(), request->client_id(),
                               study.has_value() ? &*study : nullptr);
    if (!result.ok()) return result.status();
    for (v1::Trial& trial : result->trials) *response->add_trials() = std::move(trial);
    response->set_reason(result->reason);
    return absl::OkStatus();
  });
}

grpc::Status StudyServiceImpl::CreateTrial(grpc::ServerContext*,
                                           const v1::CreateTrialRequest* request,
                                           v1::Trial* response) {
  return Handle([&]() -> absl::Status {
    if (absl::Status status = RequireStudyName(request->study_name()); !status.ok()) return status;
    absl::StatusOr<v1::Trial> trial = studies_.CreateTrial(request->study_name(), request->trial());
    return Reply(std::move(trial), response);
  });
}

grpc::Status StudyServiceImpl::GetTrial(grpc::ServerContext*, const v1::GetTrialRequest* request,
                                        v1::Trial* response) {
  return Handle([&]() -> absl::Status {
    if (absl::Status status = RequireTrial(request->study_name(), request->trial_id());
        !status.ok()) {
      return status;
    }
    absl::StatusOr<v1::Trial> trial =
        studies_.GetTrial(request->study_name(), request->trial_id(), true);
    return Reply(std::move(trial), response);
  });
}

grpc::Status StudyServiceImpl::ListTrialsBytes(const v1::ListTrialsRequest& request,
                                               grpc::ByteBuffer* response) {
  return Handle([&]() -> absl::Status {
    if (absl::Status status = RequireStudyName(request.study_name()); !status.ok()) return status;
    storage::TrialQuery query;
    for (int state : request.states()) query.states.push_back(static_cast<v1::Trial::State>(state));
    query.page_size = request.page_size();
    query.page_token = request.page_token();
    query.include_measurements = request.include_measurements();
    absl::StatusOr<storage::Page<storage::SerializedTrial>> page =
        studies_.ListTrialBodies(request.study_name(), query);
    if (!page.ok()) return page.status();
    const size_t fit = ItemsWithinListBudget(
        page->items, [](const storage::SerializedTrial& body) { return body.bytes.size(); });
    if (fit < page->items.size()) {
      page->items.resize(fit);
      page->next_page_token = storage::EncodeTrialPageToken(page->items.back().id);
    }
    const std::string answer = ListTrialsAnswer(page->items, page->next_page_token);
    grpc::Slice slice(answer);
    *response = grpc::ByteBuffer(&slice, 1);
    return absl::OkStatus();
  });
}

grpc::ServerUnaryReactor* StudyServiceImpl::AddMeasurement(grpc::CallbackServerContext* context,
                                                           const v1::AddMeasurementRequest* request,
                                                           v1::Trial* response) {
  return AddMeasurementThen(context, request, response, nullptr);
}

grpc::ServerUnaryReactor* StudyServiceImpl::AddMeasurementThen(
    grpc::CallbackServerContext* context, const v1::AddMeasurementRequest* request,
    v1::Trial* response, std::function<void(const grpc::Status&)> on_finish) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  absl::Status invalid = RequireTrial(request->study_name(), request->trial_id());
  if (invalid.ok()) invalid = RequireMeasurements(*request);
  if (!invalid.ok()) {
    const grpc::Status refused = ToGrpcStatus(invalid);
    if (on_finish) on_finish(refused);
    reactor->Finish(refused);
    return reactor;
  }
  // The request and response live until Finish has run; a batch is copied
  // into one array (a repeated field's elements are not contiguous), which
  // the callback keeps alive.
  std::shared_ptr<const std::vector<v1::Measurement>> batch;
  std::span<const v1::Measurement> measurements;
  if (request->has_measurement()) {
    measurements = {&request->measurement(), 1};
  } else {
    batch = std::make_shared<const std::vector<v1::Measurement>>(request->measurements().begin(),
                                                                 request->measurements().end());
    measurements = *batch;
  }
  studies_.AddMeasurementsAsync(
      request->study_name(), request->trial_id(), measurements,
      [reactor, response, batch, on_finish = std::move(on_finish)](absl::StatusOr<v1::Trial> trial) {
        const grpc::Status outcome = ToGrpcStatus(Reply(std::move(trial), response));
        if (on_finish) on_finish(outcome);
        reactor->Finish(outcome);
      });
  return reactor;
}

absl::StatusOr<v1::Trial> StudyServiceImpl::Complete(const v1::CompleteTrialRequest& request,
                                                     std::optional<v1::Study>* study_read) {
  VERNIER_RETURN_IF_ERROR(RequireTrial(request.study_name(), request.trial_id()));
  if (request.trial_infeasible()) {
    return studies_.MarkInfeasible(request.study_name(), request.trial_id(),
                                   request.infeasible_reason());
  }
  std::optional<v1::Measurement> final;
  if (request.has_final_measurement()) final = request.final_measurement();
  return studies_.CompleteTrial(request.study_name(), request.trial_id(), final, study_read);
}

grpc::Status StudyServiceImpl::CompleteTrial(grpc::ServerContext*,
                                             const v1::CompleteTrialRequest* request,
                                             v1::Trial* response) {
  return Handle([&]() -> absl::Status { return Reply(Complete(*request), response); });
}

grpc::Status StudyServiceImpl::StopTrial(grpc::ServerContext*, const v1::StopTrialRequest* request,
                                         v1::Trial* response) {
  return Handle([&]() -> absl::Status {
    if (absl::Status status = RequireTrial(request->study_name(), request->trial_id());
        !status.ok()) {
      return status;
    }
    absl::StatusOr<v1::Trial> trial =
        studies_.StopTrial(request->study_name(), request->trial_id());
    return Reply(std::move(trial), response);
  });
}

grpc::Status StudyServiceImpl::SetStudyUserAttributes(
    grpc::ServerContext*, const v1::SetStudyUserAttributesRequest* request, v1::Study* response) {
  return Handle([&]() -> absl::Status {
    VERNIER_RETURN_IF_ERROR(RequireStudyName(request->study_name()));
    return Reply(studies_.SetStudyUserAttributes(request->study_name(), request->attributes(),
                                                 request->remove()),
                 response);
  });
}

grpc::Status StudyServiceImpl::SetTrialUserAttributes(
    grpc::ServerContext*, const v1::SetTrialUserAttributesRequest* request, v1::Trial* response) {
  return Handle([&]() -> absl::Status {
    VERNIER_RETURN_IF_ERROR(RequireTrial(request->study_name(), request->trial_id()));
    return Reply(studies_.SetTrialUserAttributes(request->study_name(), request->trial_id(),
                                                 request->attributes(), request->remove()),
                 response);
  });
}

grpc::Status StudyServiceImpl::CheckEarlyStopping(grpc::ServerContext*,
                                                  const v1::CheckEarlyStoppingRequest* request,
                                                  v1::CheckEarlyStoppingResponse* response) {
  return Handle([&]() -> absl::Status {
    if (absl::Status status = RequireTrial(request->study_name(), request->trial_id());
        !status.ok()) {
      return status;
    }
    absl::StatusOr<EarlyStoppingDecision> decision =
        studies_.CheckEarlyStopping(request->study_name(), request->trial_id());
    if (!decision.ok()) return decision.status();
    response->set_should_stop(decision->should_stop);
    response->set_reason(decision->reason);
    return absl::OkStatus();
  });
}

grpc::Status StudyServiceImpl::ListOptimalTrials(grpc::ServerContext*,
                                                 const v1::ListOptimalTrialsRequest* request,
                                                 v1::ListOptimalTrialsResponse* response) {
  return Handle([&]() -> absl::Status {
    if (absl::Status status = RequireStudyName(request->study_name()); !status.ok()) return status;
    absl::StatusOr<std::vector<v1::Trial>> trials =
        studies_.ListOptimalTrials(request->study_name(), request->top());
    if (!trials.ok()) return trials.status();
    for (v1::Trial& trial : *trials) *response->add_trials() = std::move(trial);
    return absl::OkStatus();
  });
}

grpc::Status StudyServiceImpl::ParseStudySpec(grpc::ServerContext*,
                                              const v1::ParseStudySpecRequest* request,
                                              v1::ParseStudySpecResponse* response) {
  return Handle([&]() -> absl::Status {
    const std::string file_name =
        request->file_name().empty() ? kUnnamedSpec : request->file_name();
    VERNIER_ASSIGN_OR_RETURN(const config::SpecFormat format, SpecFormatOf(*request, file_name));
    VERNIER_ASSIGN_OR_RETURN(*response->mutable_spec(),
                             config::ParseStudySpecText(request->text(), format, file_name));
    return absl::OkStatus();
  });
}

}  // namespace vernier::tuner
