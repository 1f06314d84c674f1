#ifndef VERNIER_HTTP_DASHBOARD_FEED_H_
#define VERNIER_HTTP_DASHBOARD_FEED_H_

#include <grpcpp/channel.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "http/change_tracker.h"
#include "vernier/v1/http.pb.h"
#include "vernier/v1/job_service.grpc.pb.h"
#include "vernier/v1/study_service.grpc.pb.h"

namespace vernier::http {

// What the dashboard reads beyond the API (docs/web.md), through the same
// gRPC services and with the caller's credentials as the API:
// - server-sent events: the jobs and studies that are new or changed since
//   the stream last sent them ("event: job", "event: study"), and a study's
//   trials that changed since its stream opened ("event: trial"); data: the
//   message in proto3 JSON;
// - a study's leaderboard pages, plot summary and learning curves, computed
//   here and bounded whatever the study's size (http/dashboard_views.h).
// The trials of each study a page looks at are kept here as a StudyTable,
// read once and then brought up to date with the trials created since and
// the ones that had not ended (the only ones that change), at most every
// 250 ms; every answer first asks GetStudy with the caller's credentials,
// so a caller who may not read the study gets its error, as from the API.
class DashboardFeed {
 public:
  explicit DashboardFeed(std::shared_ptr<grpc::Channel> channel);
  ~DashboardFeed();

  // The events for every job and study that changed since `seen`; "" when
  // nothing did.
  absl::StatusOr<std::string> ListEvents(ChangeTracker& seen,
                                         const std::string& authorization) const;
  // The events for every trial of `study` that changed (new, a new state or
  // measurement) since `sequence`, which it advances; when `sequence` is
  // negative (a stream's first look) an "event: watching" instead, from
  // which on the stream misses no change.
  absl::StatusOr<std::string> TrialEvents(const std::string& study, int64_t& sequence,
                                          const std::string& authorization) const;
  // One page of the study's leaderboard.
  absl::StatusOr<v1::DashboardTrialPage> Leaderboard(const std::string& study,
                                                     const v1::DashboardTrialsRequest& request,
                                                     const std::string& authorization) const;
  // What the study's plots draw. INVALID_ARGUMENT for max_points out of
  // range.
  absl::StatusOr<v1::StudyDashboard> Summary(const std::string& study,
                                             const v1::DashboardSummaryRequest& request,
                                             const std::string& authorization) const;
  // Learning curves: each trial's objective (the study's first metric) by
  // step, at most max_points points per trial, of at most max_trials trials
  // (CurveTrialIds), or trial_id's alone. INVALID_ARGUMENT for a bound out
  // of range.
  absl::StatusOr<v1::StudyCurves> Curves(const std::string& study,
                                         const v1::DashboardCurvesRequest& request,
                                         const std::string& authorization) const;
  // Opens JobService.StreamLogs on `context` (which the caller keeps, and may
  // cancel) with `authorization`.
  std::unique_ptr<grpc::ClientReader<v1::LogLine>> OpenLogs(grpc::ClientContext& context,
                                                            const v1::StreamLogsRequest& request,
                                                            const std::string& authorization) const;

 private:
  struct StudyView;

  // GetStudy with the caller's credentials, then the study's table brought
  // up to date with them; calls `use` with the view locked and answers the
  // study.
  absl::StatusOr<v1::Study> WithStudy(const std::string& study, const std::string& authorization,
                                      const std::function<void(StudyView&)>& use) const;
  absl::Status Refresh(StudyView& view, const std::string& study,
                       const std::string& authorization) const;

  std::unique_ptr<v1::JobService::Stub> jobs_;
  std::unique_ptr<v1::StudyService::Stub> studies_;
  mutable absl::Mutex views_mutex_;
  mutable std::map<std::string, std::shared_ptr<StudyView>> views_ ABSL_GUARDED_BY(views_mutex_);
};

}  // namespace vernier::http

#endif  // VERNIER_HTTP_DASHBOARD_FEED_H_
