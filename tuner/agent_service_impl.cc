#include "tuner/agent_service_impl.h"

#include "absl/strings/str_format.h"
#include "vernier/grpc_status.h"

namespace vernier::tuner {
namespace {

absl::Status ValidateReplica(const v1::ReplicaId& replica) {
  if (replica.study_name().empty())
    return absl::InvalidArgumentError("replica.study_name is required");
  if (replica.trial_id() <= 0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("replica.trial_id %d is not a trial id", replica.trial_id()));
  }
  if (replica.role().empty()) return absl::InvalidArgumentError("replica.role is required");
  return absl::OkStatus();
}

// Measurement reports and heartbeats both carry the stop decision back.
template <typename Response>
grpc::Status AnswerWhetherToStop(StudyManager& studies, const v1::ReplicaId& replica,
                                 Response& response) {
  absl::StatusOr<EarlyStoppingDecision> decision =
      studies.CheckEarlyStopping(replica.study_name(), replica.trial_id());
  if (!decision.ok()) return ToGrpcStatus(decision.status());
  response.set_should_stop(decision->should_stop);
  response.set_reason(decision->reason);
  return grpc::Status::OK;
}

}  // namespace

grpc::Status AgentServiceImpl::ReportMeasurements(grpc::ServerContext*,
                                                  const v1::ReportMeasurementsRequest* request,
                                                  v1::ReportMeasurementsResponse* response) {
  const v1::ReplicaId& replica = request->replica();
  if (absl::Status status = ValidateReplica(replica); !status.ok()) return ToGrpcStatus(status);
  jobs_.OnAgentContact(replica);
  // The master (or chief) speaks for the trial, as on AI Platform; the other
  // replicas' agents only learn whether to stop.
  if (replica.role() == "master" || replica.role() == "chief") {
    const std::vector<v1::Measurement> measurements(request->measurements().begin(),
                                                    request->measurements().end());
    absl::StatusOr<v1::Trial> trial =
        studies_.AddMeasurements(replica.study_name(), replica.trial_id(), measurements);
    if (!trial.ok()) return ToGrpcStatus(trial.status());
  }
  return AnswerWhetherToStop(studies_, replica, *response);
}

grpc::Status AgentServiceImpl::ReportExit(grpc::ServerContext*,
                                          const v1::ReportExitRequest* request,
                                          v1::ReportExitResponse*) {
  if (absl::Status status = ValidateReplica(request->replica()); !status.ok()) {
    return ToGrpcStatus(status);
  }
  jobs_.OnAgentContact(request->replica());
  return ToGrpcStatus(jobs_.OnReplicaExit(*request));
}

grpc::Status AgentServiceImpl::Heartbeat(grpc::ServerContext*, const v1::HeartbeatRequest* request,
                                         v1::HeartbeatResponse* response) {
  const v1::ReplicaId& replica = request->replica();
  if (absl::Status status = ValidateReplica(replica); !status.ok()) return ToGrpcStatus(status);
  jobs_.OnAgentContact(replica);
  return AnswerWhetherToStop(studies_, replica, *response);
}

}  // namespace vernier::tuner
