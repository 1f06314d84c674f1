#include "http/dashboard_feed.h"

#include <google/protobuf/util/json_util.h>

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "http/downsample.h"
#include "http/grpc_call.h"

namespace vernier::http {
namespace {

constexpr int kPageSize = 1000;

// One server-sent event.
std::string Event(const std::string& name, const google::protobuf::Message& message) {
  std::string json;
  // Serialising our messages (no Any fields) cannot fail; the compact
  // printer writes no newline, which would end the event's data.
  (void)google::protobuf::util::MessageToJsonString(message, &json);
  return absl::StrCat("event: ", name, "\ndata: ", json, "\n\n");
}

// Every trial of `study`, page by page.
absl::StatusOr<std::vector<v1::Trial>> AllTrials(v1::StudyService::Stub& stub,
                                                 const std::string& study,
                                                 bool include_measurements,
                                                 const std::string& authorization) {
  std::vector<v1::Trial> trials;
  v1::ListTrialsRequest request;
  request.set_study_name(study);
  request.set_page_size(kPageSize);
  request.set_include_measurements(include_measurements);
  do {
    VERNIER_ASSIGN_OR_RETURN(
        v1::ListTrialsResponse page,
        CallWithCredentials(stub, &v1::StudyService::Stub::ListTrials, request, authorization));
    for (v1::Trial& trial : *page.mutable_trials()) trials.push_back(std::move(trial));
    request.set_page_token(page.next_page_token());
  } while (!request.page_token().empty());
  return trials;
}

}  // namespace

DashboardFeed::DashboardFeed(std::shared_ptr<grpc::Channel> channel)
    : jobs_(v1::JobService::NewStub(channel)), studies_(v1::StudyService::NewStub(channel)) {}

absl::StatusOr<std::string> DashboardFeed::ListEvents(ChangeTracker& seen,
                                                      const std::string& authorization) const {
  std::string events;
  v1::ListJobsRequest jobs;
  jobs.set_page_size(kPageSize);
  do {
    VERNIER_ASSIGN_OR_RETURN(
        v1::ListJobsResponse page,
        CallWithCredentials(*jobs_, &v1::JobService::Stub::ListJobs, jobs, authorization));
    for (const v1::Job& job : page.jobs()) {
      if (seen.Changed(absl::StrCat("job/", job.job_id()), job)) {
        absl::StrAppend(&events, Event("job", job));
      }
    }
    jobs.set_page_token(page.next_page_token());
  } while (!jobs.page_token().empty());
  v1::ListStudiesRequest studies;
  studies.set_page_size(kPageSize);
  do {
    VERNIER_ASSIGN_OR_RETURN(v1::ListStudiesResponse page,
                             CallWithCredentials(*studies_, &v1::StudyService::Stub::ListStudies,
                                                 studies, authorization));
    for (const v1::Study& study : page.studies()) {
      if (seen.Changed(absl::StrCat("study/", study.name()), study)) {
        absl::StrAppend(&events, Event("study", study));
      }
    }
    studies.set_page_token(page.next_page_token());
  } while (!studies.page_token().empty());
  return events;
}

absl::StatusOr<std::string> DashboardFeed::TrialEvents(const std::string& study,
                                                       ChangeTracker& seen,
                                                       const std::string& authorization) const {
  VERNIER_ASSIGN_OR_RETURN(std::vector<v1::Trial> trials,
                           AllTrials(*studies_, study, /*include_measurements=*/false,
                                     authorization));
  std::string events;
  for (const v1::Trial& trial : trials) {
    if (seen.Changed(absl::StrCat(trial.id()), trial)) absl::StrAppend(&events, Event("trial", trial));
  }
  return events;
}

std::unique_ptr<grpc::ClientReader<v1::LogLine>> DashboardFeed::OpenLogs(
    grpc::ClientContext& context, const v1::StreamLogsRequest& request,
    const std::string& authorization) const {
  if (!authorization.empty()) context.AddMetadata("authorization", authorization);
  return jobs_->StreamLogs(&context, request);
}

absl::StatusOr<v1::StudyCurves> DashboardFeed::Curves(const std::string& study, int64_t trial_id,
                                                      int max_points,
                                                      const std::string& authorization) const {
  v1::GetStudyRequest get;
  get.set_study_name(study);
  VERNIER_ASSIGN_OR_RETURN(
      const v1::Study found,
      CallWithCredentials(*studies_, &v1::StudyService::Stub::GetStudy, get, authorization));
  v1::StudyCurves curves;
  if (found.spec().metrics_size() > 0) curves.set_metric_id(found.spec().metrics(0).metric_id());
  std::vector<v1::Trial> trials;
  if (trial_id != 0) {
    v1::GetTrialRequest one;
    one.set_study_name(study);
    one.set_trial_id(trial_id);
    VERNIER_ASSIGN_OR_RETURN(
        v1::Trial trial,
        CallWithCredentials(*studies_, &v1::StudyService::Stub::GetTrial, one, authorization));
    trials.push_back(std::move(trial));
  } else {
    VERNIER_ASSIGN_OR_RETURN(trials, AllTrials(*studies_, study, /*include_measurements=*/true,
                                               authorization));
  }
  for (const v1::Trial& trial : trials) {
    std::vector<std::pair<int64_t, double>> points;
    for (const v1::Measurement& measurement : trial.measurements()) {
      for (const v1::Metric& metric : measurement.metrics()) {
        if (metric.metric_id() == curves.metric_id()) {
          points.emplace_back(measurement.step(), metric.value());
        }
      }
    }
    if (points.empty()) continue;
    v1::StudyCurves::Curve& curve = *curves.add_curves();
    curve.set_trial_id(trial.id());
    curve.set_state(trial.state());
    curve.set_measurement_count(trial.measurements_size());
    for (const size_t index : DownsampleIndexes(points.size(), max_points)) {
      curve.add_steps(points[index].first);
      curve.add_values(points[index].second);
    }
  }
  return curves;
}

}  // namespace vernier::http
