#include "tuner/cli/job_progress.h"

#include <algorithm>
#include <cstdint>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "tuner/cli/job_commands.h"
#include "tuner/cli/time_format.h"
#include "tuner/storage/trial_states.h"

namespace vernier::cli {
namespace {

int64_t TrialNumber(const v1::HyperparameterOutput& trial) {
  int64_t id = 0;
  return absl::SimpleAtoi(trial.trial_id(), &id) ? id : 0;
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
  for (const v1::HyperparameterOutput* trial : ended) {
    std::string line =
        absl::StrCat("trial ", trial->trial_id(), " ", v1::Trial::State_Name(trial->state()));
    if (trial->has_final_metric()) {
      absl::StrAppend(&line, "  ", ObjectiveName(job), "=", trial->final_metric().objective_value(),
                      " at step ", trial->final_metric().training_step());
    } else if (trial->state() == v1::Trial::FAILED) {
      absl::StrAppend(&line, "  (its log: vernier jobs stream-logs ", job.job_id(), " --trial ",
                      trial->trial_id(), ")");
    }
    if (best != nullptr) {
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
