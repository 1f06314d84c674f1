#ifndef VERNIER_TUNER_JOB_SERVICE_IMPL_H_
#define VERNIER_TUNER_JOB_SERVICE_IMPL_H_

#include <chrono>
#include <functional>

#include "absl/status/status.h"
#include "tuner/job_controller.h"
#include "tuner/storage/storage.h"
#include "vernier/v1/job_service.grpc.pb.h"

namespace vernier::tuner {

// Thin gRPC handlers over JobController; StreamLogs follows the replicas'
// log files.
class JobServiceImpl final : public v1::JobService::Service {
 public:
  JobServiceImpl(JobController& jobs, storage::Storage& storage,
                 std::chrono::milliseconds log_poll_interval)
      : jobs_(jobs), storage_(storage), log_poll_interval_(log_poll_interval) {}

  grpc::Status SubmitTrainingJob(grpc::ServerContext*, const v1::SubmitTrainingJobRequest* request,
                                 v1::Job* response) override;
  grpc::Status GetJob(grpc::ServerContext*, const v1::GetJobRequest* request,
                      v1::GetJobResponse* response) override;
  grpc::Status ListTrialRuns(grpc::ServerContext*, const v1::ListTrialRunsRequest* request,
                             v1::ListTrialRunsResponse* response) override;
  grpc::Status ListJobs(grpc::ServerContext*, const v1::ListJobsRequest* request,
                        v1::ListJobsResponse* response) override;
  grpc::Status CancelJob(grpc::ServerContext*, const v1::CancelJobRequest* request,
                         v1::Job* response) override;
  grpc::Status StreamLogs(grpc::ServerContext* context, const v1::StreamLogsRequest* request,
                          grpc::ServerWriter<v1::LogLine>* writer) override;
  // How often a follower's credentials are checked again.
  static constexpr std::chrono::seconds kCallerRecheckInterval{1};
  // StreamLogs that asks `caller_still_allowed` again at most every
  // kCallerRecheckInterval while it follows, and ends with its error (the
  // caller's token was revoked, expired) when it is not OK.
  grpc::Status FollowLogs(grpc::ServerContext* context, const v1::StreamLogsRequest* request,
                          grpc::ServerWriter<v1::LogLine>* writer,
                          const std::function<absl::Status()>& caller_still_allowed);
  grpc::Status DeleteJob(grpc::ServerContext*, const v1::DeleteJobRequest* request,
                         v1::DeleteJobResponse* response) override;

 private:
  JobController& jobs_;
  storage::Storage& storage_;
  std::chrono::milliseconds log_poll_interval_;
};

}  // namespace vernier::tuner

#endif  // VERNIER_TUNER_JOB_SERVICE_IMPL_H_
