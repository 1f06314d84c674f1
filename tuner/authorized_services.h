#ifndef VERNIER_TUNER_AUTHORIZED_SERVICES_H_
#define VERNIER_TUNER_AUTHORIZED_SERVICES_H_

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <cstdint>

#include "tuner/agent_service_impl.h"
#include "tuner/job_service_impl.h"
#include "tuner/rpc_authorizer.h"
#include "tuner/storage/serial_by_key_executor.h"
#include "tuner/study_service_impl.h"
#include "vernier/v1/agent_service.grpc.pb.h"
#include "vernier/v1/job_service.grpc.pb.h"
#include "vernier/v1/study_service.grpc.pb.h"

namespace vernier::tuner {

// What the server registers: each service's handlers behind the one gate
// (RpcAuthorizer), so every RPC is authenticated and authorized from the
// permission table before a handler runs, whether it arrives over the
// network or an in-process channel. The handlers themselves know nothing
// of it, except that the caller becomes the owner of what it creates
// (CreateStudy, SubmitTrainingJob: owner set, grants cleared).

// ListTrials is a raw method: its answer is the stored trials' bytes
// (StudyServiceImpl::ListTrialsBytes), not a message built from them. A
// callback handler must not block, so its reads run on threads of their own.
class AuthorizedStudyService final
    : public v1::StudyService::WithRawCallbackMethod_ListTrials<
          v1::StudyService::WithCallbackMethod_AddMeasurement<v1::StudyService::Service>> {
 public:
  AuthorizedStudyService(StudyServiceImpl& inner, RpcAuthorizer& gate) : inner_(inner), gate_(gate) {}
  grpc::Status CreateStudy(grpc::ServerContext*, const v1::CreateStudyRequest*,
                           v1::Study*) override;
  grpc::Status GetStudy(grpc::ServerContext*, const v1::GetStudyRequest*, v1::Study*) override;
  grpc::Status ListStudies(grpc::ServerContext*, const v1::ListStudiesRequest*,
                           v1::ListStudiesResponse*) override;
  grpc::Status DeleteStudy(grpc::ServerContext*, const v1::DeleteStudyRequest*,
                           v1::DeleteStudyResponse*) override;
  grpc::Status SuggestTrials(grpc::ServerContext*, const v1::SuggestTrialsRequest*,
                             v1::SuggestTrialsResponse*) override;
  grpc::Status CreateTrial(grpc::ServerContext*, const v1::CreateTrialRequest*,
                           v1::Trial*) override;
  grpc::Status GetTrial(grpc::ServerContext*, const v1::GetTrialRequest*, v1::Trial*) override;
  grpc::ServerUnaryReactor* ListTrials(grpc::CallbackServerContext*, const grpc::ByteBuffer*,
                                       grpc::ByteBuffer*) override;
  grpc::ServerUnaryReactor* AddMeasurement(grpc::CallbackServerContext*,
                                           const v1::AddMeasurementRequest*, v1::Trial*) override;
  grpc::Status CompleteTrial(grpc::ServerContext*, const v1::CompleteTrialRequest*,
                             v1::Trial*) override;
  grpc::Status StopTrial(grpc::ServerContext*, const v1::StopTrialRequest*, v1::Trial*) override;
  grpc::Status CheckEarlyStopping(grpc::ServerContext*, const v1::CheckEarlyStoppingRequest*,
                                  v1::CheckEarlyStoppingResponse*) override;
  grpc::Status ListOptimalTrials(grpc::ServerContext*, const v1::ListOptimalTrialsRequest*,
                                 v1::ListOptimalTrialsResponse*) override;
  grpc::Status ParseStudySpec(grpc::ServerContext*, const v1::ParseStudySpecRequest*,
                              v1::ParseStudySpecResponse*) override;
  grpc::Status SetStudyUserAttributes(grpc::ServerContext*,
                                      const v1::SetStudyUserAttributesRequest*,
                                      v1::Study*) override;
  grpc::Status SetTrialUserAttributes(grpc::ServerContext*,
                                      const v1::SetTrialUserAttributesRequest*,
                                      v1::Trial*) override;

 private:
  StudyServiceImpl& inner_;
  RpcAuthorizer& gate_;
  // Each ListTrials call under a key of its own: they run side by side, on
  // at most kListTrialsReaders threads.
  static constexpr int kListTrialsReaders = 4;
  std::atomic<uint64_t> list_trials_calls_{0};
  storage::SerialByKeyExecutor list_trials_readers_{kListTrialsReaders};
};

class AuthorizedJobService final : public v1::JobService::Service {
 public:
  AuthorizedJobService(JobServiceImpl& inner, RpcAuthorizer& gate) : inner_(inner), gate_(gate) {}
  grpc::Status SubmitTrainingJob(grpc::ServerContext*, const v1::SubmitTrainingJobRequest*,
                                 v1::Job*) override;
  grpc::Status GetJob(grpc::ServerContext*, const v1::GetJobRequest*,
                      v1::GetJobResponse*) override;
  grpc::Status ListTrialRuns(grpc::ServerContext*, const v1::ListTrialRunsRequest*,
                             v1::ListTrialRunsResponse*) override;
  grpc::Status ListJobs(grpc::ServerContext*, const v1::ListJobsRequest*,
                        v1::ListJobsResponse*) override;
  grpc::Status CancelJob(grpc::ServerContext*, const v1::CancelJobRequest*, v1::Job*) override;
  grpc::Status DeleteJob(grpc::ServerContext*, const v1::DeleteJobRequest*,
                         v1::DeleteJobResponse*) override;
  grpc::Status StreamLogs(grpc::ServerContext*, const v1::StreamLogsRequest*,
                          grpc::ServerWriter<v1::LogLine>*) override;

 private:
  JobServiceImpl& inner_;
  RpcAuthorizer& gate_;
};

class AuthorizedAgentService final : public v1::AgentService::Service {
 public:
  AuthorizedAgentService(AgentServiceImpl& inner, RpcAuthorizer& gate)
      : inner_(inner), gate_(gate) {}
  grpc::Status ReportMeasurements(grpc::ServerContext*, const v1::ReportMeasurementsRequest*,
                                  v1::ReportMeasurementsResponse*) override;
  grpc::Status ReportExit(grpc::ServerContext*, const v1::ReportExitRequest*,
                          v1::ReportExitResponse*) override;
  grpc::Status Heartbeat(grpc::ServerContext*, const v1::HeartbeatRequest*,
                         v1::HeartbeatResponse*) override;

 private:
  AgentServiceImpl& inner_;
  RpcAuthorizer& gate_;
};

}  // namespace vernier::tuner

#endif  // VERNIER_TUNER_AUTHORIZED_SERVICES_H_
