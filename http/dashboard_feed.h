#ifndef VERNIER_HTTP_DASHBOARD_FEED_H_
#define VERNIER_HTTP_DASHBOARD_FEED_H_

#include <cstdint>
#include <memory>
#include <string>

#include <grpcpp/channel.h>

#include "absl/status/statusor.h"
#include "http/change_tracker.h"
#include "vernier/v1/http.pb.h"
#include "vernier/v1/job_service.grpc.pb.h"
#include "vernier/v1/study_service.grpc.pb.h"

namespace vernier::http {

// What the dashboard reads beyond the API (docs/web.md), through the same
// gRPC services and with the caller's credentials as the API:
// - server-sent events: the jobs and studies, or a study's trials, that are
//   new or changed since the stream last sent them ("event: job",
//   "event: study", "event: trial"; data: the message in proto3 JSON), so a
//   page updates without refetching what it has;
// - a study's learning curves, downsampled here.
class DashboardFeed {
 public:
  explicit DashboardFeed(std::shared_ptr<grpc::Channel> channel);

  // The events for every job and study that changed since `seen`; "" when
  // nothing did.
  absl::StatusOr<std::string> ListEvents(ChangeTracker& seen,
                                         const std::string& authorization) const;
  // The events for every trial of `study` that changed since `seen`.
  absl::StatusOr<std::string> TrialEvents(const std::string& study, ChangeTracker& seen,
                                          const std::string& authorization) const;
  // Each trial's objective (the study's first metric) by step, at most
  // `max_points` points per trial; only trial `trial_id`'s when it is not 0.
  absl::StatusOr<v1::StudyCurves> Curves(const std::string& study, int64_t trial_id,
                                         int max_points, const std::string& authorization) const;
  // Opens JobService.StreamLogs on `context` (which the caller keeps, and may
  // cancel) with `authorization`.
  std::unique_ptr<grpc::ClientReader<v1::LogLine>> OpenLogs(
      grpc::ClientContext& context, const v1::StreamLogsRequest& request,
      const std::string& authorization) const;

 private:
  std::unique_ptr<v1::JobService::Stub> jobs_;
  std::unique_ptr<v1::StudyService::Stub> studies_;
};

}  // namespace vernier::http

#endif  // VERNIER_HTTP_DASHBOARD_FEED_H_
