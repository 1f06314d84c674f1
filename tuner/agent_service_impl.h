#ifndef VERNIER_TUNER_AGENT_SERVICE_IMPL_H_
#define VERNIER_TUNER_AGENT_SERVICE_IMPL_H_

#include "tuner/job_controller.h"
#include "tuner/study_manager.h"
#include "vernier/v1/agent_service.grpc.pb.h"

namespace vernier::tuner {

// What agents beside replicas report: measurements (stored once each, by
// sequence number), heartbeats and exits (which decide the trial). Every
// call counts as a sign of life for the job controller's agent timeout, and
// measurement reports and heartbeats answer whether the trial should stop.
class AgentServiceImpl final : public v1::AgentService::Service {
 public:
  AgentServiceImpl(StudyManager& studies, JobController& jobs) : studies_(studies), jobs_(jobs) {}

  grpc::Status ReportMeasurements(grpc::ServerContext*,
                                  const v1::ReportMeasurementsRequest* request,
                                  v1::ReportMeasurementsResponse* response) override;
  grpc::Status ReportExit(grpc::ServerContext*, const v1::ReportExitRequest* request,
                          v1::ReportExitResponse* response) override;
  grpc::Status Heartbeat(grpc::ServerContext*, const v1::HeartbeatRequest* request,
                         v1::HeartbeatResponse* response) override;

 private:
  StudyManager& studies_;
  JobController& jobs_;
};

}  // namespace vernier::tuner

#endif  // VERNIER_TUNER_AGENT_SERVICE_IMPL_H_
