#include "tuner/cli/job_progress.h"

#include <algorithm>
#include <cstdint>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "tuner/cli/job_commands.h"
#include "tuner/cli/time_format.h"
#include "tuner/storage/trial_ranking.h"
#include "tuner/storage/trial_states.h"

namespace vernier::cli {
namespace {

int64_t TrialNumber(const v1::HyperparameterOutput& trial) {
  int64_t id = 0;
  return absl::SimpleAtoi(trial.trial_id(), &id) ? id : 0;
}

// The job's metrics as a study's: the objectives and constraints its
// trials' final_metrics hold, in that order.
v1::StudySpec MetricsOf(const v1::Job& job) {
  v1::StudySpec spec;
  for (const v1::MetricSpec& metric : job.training_input().hyperparameters().metrics()) {
    *spec.add_metrics() = metric;
  }
  return spec;
}

// With several objectives, the Pareto front of the ended trials as
// ListOptimalTrials ranks it: "Pareto front: trials 2, 5 (2)", at most 10 ids.
std::string FrontText(const v1::Job& job, const v1::StudySpec& spec) {
  std::vector<v1::Trial> ended;
  for (const v1::HyperparameterOutput& output : job.training_output().trials()) {
    if (output.final_metrics().empty() ||
        (output.state() != v1::Trial::SUCCEEDED && output.state() != v1::Trial::STOPPED_EARLY)) {
      continue;
    }
    v1::Trial& trial = ended.emplace_back();
    trial.set_id(TrialNumber(output));
    trial.set_state(output.state());
    *trial.mutable_final_measurement()->mutable_metrics() = output.final_metrics();
  }
  const std::vector<v1::Trial> front = tuner::RankTrials(ended, spec, 0);
  if (front.empty()) return "";
  std::vector<int64_t> ids;
  for (const v1::Trial& trial : front) {
    if (ids.size() == 10) break;
    ids.push_back(trial.id());
  }
  return absl::StrCat("  Pareto front: trials ", absl::StrJoin(ids, ", "),
                      front.size() > ids.size() ? ", ..." : "", " (", front.size(), ")");
}

}  // namespace

std::vector<std::string> JobProgress::Update(const v1::GetJobResponse& snapshot, absl::Time now,
                                             const std::map<std::string, std::string>& reasons) {
  const v1::Job& job = snapshot.job();
  std::vector<const v1::HyperparameterOutput*> ended;
  for (const v1::HyperparameterOutput& trial : job.training_output().trials()) {
    if (trial.resumed() || !tuner::HasEnded(trial.state())) continue;
    if (reported_.insert(trial.trial_id()).second) ended.push_back(&trial);
  }
  std::sort(ended.begin(), ended.end(),
            [](const auto* a, const auto* b) { return TrialNumber(*a) < TrialNumber(*b); });
  std::vector<std::string> lines;
  const v1::HyperparameterOutput* best = FindBestTrial(job);
  // Several objectives have no one best: every metric of each trial, and
  // the front so far.
  const v1::StudySpec metrics = MetricsOf(job);
  const bool several = tuner::ObjectiveCount(metrics) > 1;
  const std::string front = several && !ended.empty() ? FrontText(job, metrics) : "";
  for (const v1::HyperparameterOutput* trial : ended) {
    std::string line =
        absl::StrCat("trial ", trial->trial_id(), " ", v1::Trial::State_Name(trial->state()));
    if (several && !trial->final_metrics().empty()) {
      absl::StrAppend(&line, " ");
      for (const v1::Metric& metric : trial->final_metrics()) {
        absl::StrAppend(&line, " ", metric.metric_id(), "=", metric.value());
      }
      absl::StrAppend(&line, " at step ", trial->final_metric().training_step());
    } else if (trial->has_final_metric()) {
      absl::StrAppend(&line, "  ", ObjectiveName(job), "=", trial->final_metric().objective_value(),
                      " at step ", trial->final_metric().training_step());
    } else if (trial->state() == v1::Trial::FAILED) {
      absl::StrAppend(&line, "  (its log: vernier jobs stream-logs ", job.job_id(), " --trial ",
                      trial->trial_id(), ")");
    }
    if (several) {
      absl::StrAppend(&line, front);
    } else if (best != nullptr) {
      absl::StrAppend(&line, "  best ", best->final_metric().objective_value(), " (trial ",
                      best->trial_id(), ")");
    }
    lines.push_back(std::move(line));
    const auto reason = reasons.find(trial->trial_id());
    if (trial->state() == v1::Trial::FAILED && reason != reasons.end()) {
      for (absl::string_view reason_line :
           absl::StrSplit(reason->second, '\n', absl::SkipWhitespace())) {
        lines.push_back(absl::StrCat("  ", absl::StripTrailingAsciiWhitespace(reason_line)));
      }
    }
  }
  const v1::TrialCounts& counts = snapshot.trial_counts();
  const std::string key = absl::StrCat(job.training_output().completed_trial_count(), "/",
                                       counts.active(), "/", v1::Job::State_Name(job.state()));
  if (key != last_counts_) {
    last_counts_ = key;
    lines.push_back(ProgressLine(snapshot, now));
  }
  return lines;
}

std::string JobProgress::ProgressLine(const v1::GetJobResponse& snapshot, absl::Time now) const {
  const v1::Job& job = snapshot.job();
  const int64_t done = job.training_output().completed_trial_count();
  const int64_t max_trials =
      std::max<int64_t>(job.training_input().hyperparameters().max_trials(), 1);
  // From the submission: a start after PREPARING does not set it back.
  const google::protobuf::Timestamp& since =
      HasTime(job.create_time()) ? job.create_time() : job.start_time();
  const absl::Duration elapsed = HasTime(job.end_time())
                                     ? ToAbslTime(job.end_time()) - ToAbslTime(since)
                                     : now - ToAbslTime(since);
  if (job.state() == v1::Job::PREPARING) {
    return absl::StrCat("progress: installing the job's packages (PREPARING), ",
                        FormatCompactDuration(elapsed), " elapsed");
  }
  std::string line = absl::StrCat("progress: ", done, "/", max_trials, " trials ended, ",
                                  snapshot.trial_counts().active(), " running, ",
                                  FormatCompactDuration(elapsed), " elapsed");
  if (tuner::HasEnded(job.state())) {
    absl::StrAppend(&line, ", job ", v1::Job::State_Name(job.state()));
  } else if (done > 0 && done < max_trials && elapsed > absl::ZeroDuration()) {
    // At the pace so far: trials ended per unit of time, parallelism included.
    const absl::Duration left = elapsed * (static_cast<double>(max_trials - done) / done);
    absl::StrAppend(&line, ", about ", FormatCompactDuration(left), " left");
  }
  return line;
}

}  // namespace vernier::cli
