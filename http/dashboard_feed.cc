#include "http/dashboard_feed.h"

#include <google/protobuf/arena.h>
#include <google/protobuf/util/json_util.h>

#include <future>
#include <set>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/status_macros.h"
#include "http/dashboard_views.h"
#include "http/downsample.h"
#include "http/grpc_call.h"
#include "http/study_table.h"

namespace vernier::http {
namespace {

// Pages of a first read: fewer calls, each well under the list budget (a
// trial of 20 parameters is about 600 bytes, so 2.4 MB of the 3 MB).
constexpr int kPageSize = 4000;

// One server-sent event.
std::string Event(const std::string& name, const google::protobuf::Message& message) {
  std::string json;
  // Serialising our messages (no Any fields) cannot fail; the compact
  // printer writes no newline, which would end the event's data.
  (void)google::protobuf::util::MessageToJsonString(message, &json);
  return absl::StrCat("event: ", name, "\ndata: ", json, "\n\n");
}

// The pages of a study's table's later listings: where the last one starts
// is where the next listing starts.
constexpr int kTailPageSize = 100;
// How often a study's table is brought up to date at most.
constexpr absl::Duration kRefreshInterval = absl::Milliseconds(250);
// How many studies' tables are kept (the least recently used goes).
constexpr size_t kMaxViews = 4;
constexpr int kDefaultMaxPoints = 1000;
constexpr int kDefaultCurvePoints = 100;
constexpr int kDefaultCurveTrials = 100;

// `value` (0: `fallback`) if it lies in [low, high]; else INVALID_ARGUMENT
// naming the query parameter.
absl::StatusOr<int> Bounded(const char* name, int value, int fallback, int low, int high) {
  if (value == 0) return fallback;
  if (value < low || value > high) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " must be ", low, " to ", high, ", not ", value));
  }
  return value;
}
}  // namespace

// One study's table, shared by every page looking at the study.
struct DashboardFeed::StudyView {
  absl::Mutex mutex;
  // The study's create time: a study deleted and made again under its name
  // starts afresh.
  int64_t created = -1;
  v1::StudySpec spec;
  std::unique_ptr<StudyTable> table;
  // Where the last listing's last page started: the next listing resumes
  // there and finds the trials created since.
  std::string tail_token;
  absl::Time refreshed = absl::InfinitePast();
  absl::Time used = absl::InfinitePast();
  // The Pareto front and the importances, as of table sequence
  // derived_sequence.
  int64_t derived_sequence = -1;
  std::vector<int64_t> pareto;
  ImportanceReading importance;
};

absl::Status DashboardFeed::Refresh(StudyView& view, const std::string& study,
                                    const std::string& authorization) const {
  const absl::Time now = absl::Now();
  if (now - view.refreshed < kRefreshInterval) return absl::OkStatus();
  // The trials from where the last listing's last page started: the new ones.
  v1::ListTrialsRequest tail;
  tail.set_study_name(study);
  // Small pages once the study has been read: the last one is read again.
  tail.set_page_size(view.table->rows().empty() ? kPageSize : kTailPageSize);
  tail.set_page_token(view.tail_token);
  absl::flat_hash_set<int64_t> seen;
  // The next page is asked for before this one is applied, so that the
  // server reads and sends one page while the table takes in the last. Each
  // page is parsed into an arena of its own: the first read of a big study
  // parses every trial, and the many small allocations of its parameters'
  // messages cost more than the parse, freed at once with the arena.
  // That thread also turns the page into the table's rows (RowOf only
  // reads the table's columns).
  struct Page {
    absl::Status status;
    std::vector<v1::DashboardTrial> rows;
    std::string next_page_token;
  };
  const StudyTable& table = *view.table;
  const auto list = [this, &authorization, &table](const v1::ListTrialsRequest& request) {
    return std::async(std::launch::async, [this, request, &authorization, &table] {
      google::protobuf::Arena arena;
      auto* response = google::protobuf::Arena::CreateMessage<v1::ListTrialsResponse>(&arena);
      Page page;
      page.status = CallWithCredentialsInto(*studies_, &v1::StudyService::Stub::ListTrials, request,
                                            response, authorization);
      page.rows.reserve(static_cast<size_t>(response->trials_size()));
      for (const v1::Trial& trial : response->trials()) page.rows.push_back(table.RowOf(trial));
      page.next_page_token = response->next_page_token();
      return page;
    });
  };
  std::future<Page> next = list(tail);
  while (true) {
    Page page = next.get();
    VERNIER_RETURN_IF_ERROR(page.status);
    if (!page.next_page_token.empty()) {
      v1::ListTrialsRequest following = tail;
      following.set_page_token(page.next_page_token);
      next = list(following);
    }
    for (v1::DashboardTrial& row : page.rows) {
      seen.insert(row.id());
      view.table->ApplyRow(std::move(row));
    }
    if (page.next_page_token.empty()) break;
    tail.set_page_token(page.next_page_token);
  }
  view.tail_token = tail.page_token();
  // The trials that had not ended: the only ones that change.
  v1::ListTrialsRequest pending;
  pending.set_study_name(study);
  pending.set_page_size(kPageSize);
  for (const v1::Trial::State state :
       {v1::Trial::REQUESTED, v1::Trial::ACTIVE, v1::Trial::STOPPING}) {
    pending.add_states(state);
  }
  std::set<int64_t> still_pending;
  do {
    VERNIER_ASSIGN_OR_RETURN(const v1::ListTrialsResponse page,
                             CallWithCredentials(*studies_, &v1::StudyService::Stub::ListTrials,
                                                 pending, authorization));
    for (const v1::Trial& trial : page.trials()) {
      view.table->Apply(trial);
      still_pending.insert(trial.id());
    }
    pending.set_page_token(page.next_page_token());
  } while (!pending.page_token().empty());
  // Those the table has as not ended that are no longer listed so: ended.
  std::vector<int64_t> ended;
  for (const int64_t id : view.table->pending_ids()) {
    if (!still_pending.contains(id) && !seen.contains(id)) ended.push_back(id);
  }
  for (const int64_t id : ended) {
    v1::GetTrialRequest get;
    get.set_study_name(study);
    get.set_trial_id(id);
    absl::StatusOr<v1::Trial> trial =
        CallWithCredentials(*studies_, &v1::StudyService::Stub::GetTrial, get, authorization);
    if (absl::IsNotFound(trial.status())) continue;
    if (!trial.ok()) return trial.status();
    view.table->Apply(*trial);
  }
  view.refreshed = now;
  return absl::OkStatus();
}

absl::StatusOr<v1::Study> DashboardFeed::WithStudy(
    const std::string& study, const std::string& authorization,
    const std::function<void(StudyView&)>& use) const {
  v1::GetStudyRequest get;
  get.set_study_name(study);
  VERNIER_ASSIGN_OR_RETURN(
      v1::Study found,
      CallWithCredentials(*studies_, &v1::StudyService::Stub::GetStudy, get, authorization));
  std::shared_ptr<StudyView> view;
  {
    absl::MutexLock lock(&views_mutex_);
    std::shared_ptr<StudyView>& entry = views_[study];
    if (entry == nullptr) entry = std::make_shared<StudyView>();
    view = entry;
    view->used = absl::Now();
    if (views_.size() > kMaxViews) {
      auto oldest = views_.begin();
      for (auto it = views_.begin(); it != views_.end(); ++it) {
        if (it->second->used < oldest->second->used) oldest = it;
      }
      views_.erase(oldest);
    }
  }
  absl::MutexLock lock(&view->mutex);
  const int64_t created =
      found.create_time().seconds() * 1'000'000'000 + found.create_time().nanos();
  if (view->table == nullptr || view->created != created) {
    view->created = created;
    view->spec = found.spec();
    view->table = std::make_unique<StudyTable>(found.spec());
    view->tail_token.clear();
    view->refreshed = absl::InfinitePast();
    view->derived_sequence = -1;
  }
  VERNIER_RETURN_IF_ERROR(Refresh(*view, study, authorization));
  use(*view);
  return found;
}

absl::StatusOr<std::string> DashboardFeed::TrialEvents(const std::string& study, int64_t& sequence,
                                                       const std::string& authorization) const {
  std::string events;
  VERNIER_RETURN_IF_ERROR(WithStudy(study, authorization, [&](StudyView& view) {
                            if (sequence < 0) {
                              events = "event: watching\ndata: {}\n\n";
                            } else {
                              for (const v1::DashboardTrial* row :
                                   view.table->ChangedSince(sequence)) {
                                absl::StrAppend(&events, Event("trial", *row));
                              }
                            }
                            sequence = view.table->sequence();
                          }).status());
  return events;
}

absl::StatusOr<v1::DashboardTrialPage> DashboardFeed::Leaderboard(
    const std::string& study, const v1::DashboardTrialsRequest& request,
    const std::string& authorization) const {
  absl::StatusOr<v1::DashboardTrialPage> page;
  VERNIER_RETURN_IF_ERROR(WithStudy(study, authorization, [&](StudyView& view) {
                            page = LeaderboardPage(*view.table, view.spec, request);
                          }).status());
  return page;
}

absl::StatusOr<v1::StudyDashboard> DashboardFeed::Summary(
    const std::string& study, const v1::DashboardSummaryRequest& request,
    const std::string& authorization) const {
  VERNIER_ASSIGN_OR_RETURN(const int max_points,
                           Bounded("maxPoints", request.max_points(), kDefaultMaxPoints, 2, 10000));
  v1::StudyDashboard summary;
  VERNIER_RETURN_IF_ERROR(
      WithStudy(study, authorization, [&](StudyView& view) {
        if (view.derived_sequence != view.table->sequence()) {
          // Both read the whole table: side by side.
          std::future<ImportanceReading> importance =
              std::async(std::launch::async, [&view] { return ParameterImportance(*view.table); });
          view.pareto = ParetoFrontIds(*view.table, view.spec);
          view.importance = importance.get();
          view.derived_sequence = view.table->sequence();
        }
        summary = http::Summary(*view.table, view.spec, view.pareto, view.importance,
                                static_cast<size_t>(max_points));
      }).status());
  // A job's study is named after the job: the GPUs its recent trials held,
  // from their runs alone. A study without a job, or a job the caller may
  // not read, has none.
  if (summary.recent().empty()) return summary;
  v1::ListTrialRunsRequest list;
  list.set_job_id(study);
  for (const v1::DashboardTrial& trial : summary.recent()) list.add_trial_ids(trial.id());
  if (const absl::StatusOr<v1::ListTrialRunsResponse> runs =
          CallWithCredentials(*jobs_, &v1::JobService::Stub::ListTrialRuns, list, authorization);
      runs.ok()) {
    AddRecentGpus(runs->trial_runs(), summary);
  } else if (!absl::IsNotFound(runs.status()) && !absl::IsPermissionDenied(runs.status()) &&
             !absl::IsInvalidArgument(runs.status())) {
    return runs.status();
  }
  return summary;
}
DashboardFeed::DashboardFeed(std::shared_ptr<grpc::Channel> channel)
    : jobs_(v1::JobService::NewStub(channel)), studies_(v1::StudyService::NewStub(channel)) {}

DashboardFeed::~DashboardFeed() = default;

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

std::unique_ptr<grpc::ClientReader<v1::LogLine>> DashboardFeed::OpenLogs(
    grpc::ClientContext& context, const v1::StreamLogsRequest& request,
    const std::string& authorization) const {
  if (!authorization.empty()) context.AddMetadata("authorization", authorization);
  return jobs_->StreamLogs(&context, request);
}

absl::StatusOr<v1::StudyCurves> DashboardFeed::Curves(const std::string& study,
                                                      const v1::DashboardCurvesRequest& request,
                                                      const std::string& authorization) const {
  VERNIER_ASSIGN_OR_RETURN(const int max_points, Bounded("maxPoints", request.max_points(),
                                                         kDefaultCurvePoints, 2, 10000));
  VERNIER_ASSIGN_OR_RETURN(const int max_trials, Bounded("maxTrials", request.max_trials(),
                                                         kDefaultCurveTrials, 1, 1000));
  std::vector<int64_t> ids;
  v1::Study found;
  if (request.trial_id() != 0) {
    v1::GetStudyRequest get;
    get.set_study_name(study);
    VERNIER_ASSIGN_OR_RETURN(
        found,
        CallWithCredentials(*studies_, &v1::StudyService::Stub::GetStudy, get, authorization));
    ids.push_back(request.trial_id());
  } else {
    VERNIER_ASSIGN_OR_RETURN(found, WithStudy(study, authorization, [&](StudyView& view) {
                               ids = CurveTrialIds(*view.table, view.spec,
                                                   static_cast<size_t>(max_trials));
                             }));
  }
  v1::StudyCurves curves;
  if (found.spec().metrics_size() > 0) curves.set_metric_id(found.spec().metrics(0).metric_id());
  for (const int64_t id : ids) {
    v1::GetTrialRequest one;
    one.set_study_name(study);
    one.set_trial_id(id);
    VERNIER_ASSIGN_OR_RETURN(
        const v1::Trial trial,
        CallWithCredentials(*studies_, &v1::StudyService::Stub::GetTrial, one, authorization));
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
    for (const size_t index : DownsampleIndexes(points.size(), static_cast<size_t>(max_points))) {
      curve.add_steps(points[index].first);
      curve.add_values(points[index].second);
    }
  }
  return curves;
}

}  // namespace vernier::http
