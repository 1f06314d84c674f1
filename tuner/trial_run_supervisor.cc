#include "tuner/trial_run_supervisor.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "common/status_macros.h"
#include "google/protobuf/util/message_differencer.h"
#include "scheduler/replica_state.h"
#include "scheduler/transient_backend_error.h"
#include "spdlog/spdlog.h"
#include "suggest/search_space.h"
#include "tuner/storage/scoped_write_fence.h"
#include "tuner/storage/transient_error.h"
#include "tuner/storage/trial_ranking.h"
#include "tuner/storage/trial_states.h"

namespace vernier::tuner {
namespace {

// What an attempt's agents may report about. A job's study is named after
// the job.
v1::AgentScope AgentScopeOf(const TrialKey& key, int attempt) {
  v1::AgentScope scope;
  scope.set_study_name(key.job_id);
  scope.set_job_id(key.job_id);
  scope.set_trial_id(key.trial_id);
  scope.set_attempt(attempt);
  return scope;
}

bool IsMaster(const std::string& role) { return role == "master" || role == "chief"; }

const v1::ReplicaStatus* MasterOf(const v1::TrialRun& run) {
  for (const v1::ReplicaStatus& replica : run.replicas()) {
    if (IsMaster(replica.role())) return &replica;
  }
  return nullptr;
}

std::string ReplicaName(const std::string& role, int index) {
  return absl::StrCat(role, "-", index);
}

std::string ExitDescription(const std::string& replica, int exit_code, int term_signal) {
  if (term_signal != 0) {
    return absl::StrFormat("%s was killed by signal %d (%s)", replica, term_signal,
                           strsignal(term_signal));
  }
  return absl::StrFormat("%s exited with code %d", replica, exit_code);
}

// The last measurement that holds the objective: the trial's result.
std::optional<v1::Measurement> LastObjectiveMeasurement(const v1::Trial& trial,
                                                        const std::string& objective) {
  for (auto it = trial.measurements().rbegin(); it != trial.measurements().rend(); ++it) {
    if (MetricValue(*it, objective).has_value()) return *it;
  }
  return std::nullopt;
}

// Why a trial whose trainer exited with 0 has no result: the objective never
// appeared. Names the metrics that did (a misspelt or differently named
// objective is the usual cause) and how to read another output format.
std::string MissingObjectiveMessage(const v1::Trial& trial, const std::string& replica,
                                    const std::string& objective, const std::string& metric_regex) {
  constexpr size_t kMaxNamesShown = 10;
  std::set<std::string> seen;
  for (const v1::Measurement& measurement : trial.measurements()) {
    for (const v1::Metric& metric : measurement.metrics()) seen.insert(metric.metric_id());
  }
  std::string message = absl::StrFormat(
      "%s exited with code 0 but never reported the objective metric \"%s\"", replica, objective);
  if (!seen.empty()) {
    std::vector<std::string> shown(seen.begin(), seen.end());
    if (shown.size() > kMaxNamesShown) shown.resize(kMaxNamesShown);
    absl::StrAppendFormat(&message,
                          "; the metrics it reported: %s%s (is hyperparameterMetricTag "
                          "one of them under another name?)",
                          absl::StrJoin(shown, ", "),
                          seen.size() > kMaxNamesShown
                              ? absl::StrFormat(" and %d more", seen.size() - kMaxNamesShown)
                              : "");
  } else {
    absl::StrAppend(&message, "; it reported no metric at all");
  }
  if (metric_regex.empty()) {
    absl::StrAppendFormat(&message,
                          " (print `%s=VALUE` or report it with cloudml-hypertune, or give the "
                          "job a metricRegex that reads the trainer's own output format)",
                          objective);
  } else {
    absl::StrAppendFormat(&message,
                          " (the job's metricRegex \"%s\" found no \"%s\" in the trainer's "
                          "output; check the pattern against a line the trainer prints)",
                          metric_regex, objective);
  }
  return message;
}

// The lease this thread's writes are fenced with, to carry into a thread.
std::optional<storage::WriteFence> CurrentFence() {
  const storage::WriteFence* fence = storage::ScopedWriteFence::Current();
  if (fence == nullptr) return std::nullopt;
  return *fence;
}

bool IsLive(const v1::ReplicaStatus& replica) {
  return replica.state() == v1::ReplicaStatus::RUNNING ||
         replica.state() == v1::ReplicaStatus::PENDING;
}

// A run without a backend handle was recorded but never submitted (the
// launch failed, or the server died in between): nothing of it runs. The
// handle, not a PID, tells: Slurm replicas have no PID of ours.
bool HasLiveReplica(const v1::TrialRun& run) {
  if (run.backend_handle().empty()) return false;
  for (const v1::ReplicaStatus& replica : run.replicas()) {
    if (IsLive(replica)) return true;
  }
  return false;
}

// Why a trial fails whose replica's agent has been silent for `silent`,
// past the agent timeout; `what_follows` says what becomes of its
// processes.
std::string SilentAgentReason(const std::string& replica, absl::Duration silent,
                              absl::Duration timeout, const std::string& what_follows) {
  return absl::StrFormat(
      "the agent of %s sent no heartbeat for %s (agent timeout %s): it was killed, stopped or "
      "cut off from the service; %s",
      replica, absl::FormatDuration(absl::Trunc(silent, absl::Seconds(1))),
      absl::FormatDuration(timeout), what_follows);
}

// What a trial failed while its run has no backend handle says of its
// processes.
std::string UnreachableProcesses(const std::string& trial_dir) {
  return absl::StrCat(
      "its run's backend handle was never stored, so its processes cannot be ended from here; see ",
      trial_dir);
}

// A run stored before it was submitted (LaunchTrial records it first, its
// replicas PENDING) whose backend handle was never stored: its server
// stopped or died in between, before or after submitting it.
bool MayRunWithoutHandle(const v1::TrialRun& run) {
  if (!run.backend_handle().empty()) return false;
  for (const v1::ReplicaStatus& replica : run.replicas()) {
    if (IsLive(replica)) return true;
  }
  return false;
}

// A run without its backend handle of which a replica's agent reported its
// exit (RecordExitWithoutHandle): it ran.
bool ReportedAnExit(const v1::TrialRun& run) {
  if (!run.backend_handle().empty()) return false;
  for (const v1::ReplicaStatus& replica : run.replicas()) {
    if (replica.state() == v1::ReplicaStatus::EXITED) return true;
  }
  return false;
}

}  // namespace

TrialRunSupervisor::TrialRunSupervisor(storage::Storage& storage, StudyManager& studies,
                                       scheduler::Backend& backend, scheduler::Admission& admission,
                                       TrialRunSupervisorOptions options, Clock clock)
    : storage_(storage),
      studies_(studies),
      backend_(backend),
      admission_(admission),
      options_(std::move(options)),
      clock_(std::move(clock)),
      agent_credentials_(storage, clock_) {}

TrialRunSupervisor::~TrialRunSupervisor() { Stop(); }

void TrialRunSupervisor::set_server_address(std::string address) {
  options_.launch.server_address = std::move(address);
}

void TrialRunSupervisor::Stop() {
  std::vector<std::thread> cancellers;
  {
    absl::MutexLock lock(&mutex_);
    cancellers.swap(cancellers_);
  }
  for (std::thread& canceller : cancellers) canceller.join();
}

std::vector<int> TrialRunSupervisor::GangShape(const v1::Job& job) {
  std::vector<int> gpus_per_replica;
  for (const v1::ReplicaSpec& spec : ReplicaSpecsOf(job)) {
    gpus_per_replica.push_back(spec.gpu_count());
  }
  return gpus_per_replica;
}

scheduler::GangOwner TrialRunSupervisor::GangOwnerOf(const v1::Job& job) {
  return scheduler::GangOwner{job.owner(), job.job_id()};
}

std::optional<TrialAttemptState> TrialRunSupervisor::AttemptState(const TrialKey& key) {
  absl::MutexLock lock(&mutex_);
  auto attempt = attempts_.find(key);
  if (attempt == attempts_.end()) return std::nullopt;
  return attempt->second.state;
}

void TrialRunSupervisor::RestoreGrants(const std::vector<v1::Job>& jobs) {
  for (const v1::Job& job : jobs) {
    absl::StatusOr<std::vector<v1::TrialRun>> runs = storage_.ListTrialRuns(job.job_id());
    if (!runs.ok()) {
      spdlog::error("job={} cannot restore its GPU and port grants: {}", job.job_id(),
                    runs.status().ToString());
      continue;
    }
    for (const v1::TrialRun& run : *runs) {
      // A run stored without its handle may run too (AwaitsItsAgents): it
      // keeps its grant until that is known.
      const bool without_handle = MayRunWithoutHandle(run);
      if (!without_handle && !HasLiveReplica(run)) continue;
      if (without_handle) {
        // Known before the first pass, so that an exit report queued for
        // this server while it did not drive the job is written into it.
        absl::MutexLock lock(&mutex_);
        awaited_runs_.try_emplace({job.job_id(), run.trial_id()}, AwaitedRun::kNotLogged);
      }
      absl::StatusOr<scheduler::GangTicket> ticket = admission_.Restore(run, GangOwnerOf(job));
      if (!ticket.ok()) {
        spdlog::error("job={} trial={} cannot restore its GPU and port grants: {}", job.job_id(),
                      run.trial_id(), ticket.status().ToString());
        continue;
      }
      absl::MutexLock lock(&mutex_);
      TrialAttempt& attempt = attempts_[{job.job_id(), run.trial_id()}];
      if (attempt.ticket.has_value()) admission_.Release(*attempt.ticket);
      attempt.state = TrialAttemptState::kRunning;
      attempt.attempt = run.attempt();
      attempt.ticket = *ticket;
    }
  }
}

absl::StatusOr<bool> TrialRunSupervisor::Supervise(const v1::Job& job,
                                                   std::vector<v1::Trial>& trials,
                                                   TrialRuns& runs) {
  VERNIER_RETURN_IF_ERROR(ReconcileRuns(job, trials, runs));
  FailSilentAgents(job, trials, runs);
  return SettleEndedTrials(job, trials, runs);
}

absl::Status TrialRunSupervisor::ReconcileRuns(const v1::Job& job, std::vector<v1::Trial>& trials,
                                               TrialRuns& runs) {
  const absl::Time now = clock_();
  // An agent's report cannot have come while the store was away.
  const absl::Time reachable_since = StoreReachableSince(now);
  bool backend_away = false;
  for (v1::Trial& trial : trials) {
    if (!IsRunning(trial.state())) continue;
    auto run = runs.find(trial.id());
    if (run == runs.end()) continue;
    const TrialKey key{job.job_id(), trial.id()};
    {
      absl::MutexLock lock(&mutex_);
      auto attempt = attempts_.find(key);
      if (attempt != attempts_.end() && attempt->second.restarting()) continue;
    }
    const v1::ReplicaStatus* before = MasterOf(run->second);
    if (before == nullptr || run->second.backend_handle().empty()) {
      // Recorded, and not known to be started. (A Slurm replica has no PID
      // of ours; the handle tells a submitted run.)
      // One whose replica reported its exit ran: its trial ends through
      // that report (this pass read the trial before it came).
      const bool keep =
          before != nullptr && (MayRunWithoutHandle(run->second)
                                    ? AwaitsItsAgents(job, trial, run->second, now, reachable_since)
                                    : ReportedAnExit(run->second));
      if (!keep) runs.erase(run);
      continue;
    }
    // With the backend's controller away each call waits out its own
    // retries: one per pass finds out whether it is back.
    if (backend_away) continue;
    absl::StatusOr<v1::TrialRun> described = backend_.Describe(run->second);
    if (!described.ok()) {
      if (scheduler::IsTransientBackendError(described.status())) {
        // Logged once per outage by the backend; the trial keeps its state.
        backend_away = true;
        spdlog::debug("job={} trial={} cannot describe its run while the backend is away: {}",
                      job.job_id(), trial.id(), described.status().ToString());
        continue;
      }
      spdlog::warn("job={} trial={} cannot describe its run: {}", job.job_id(), trial.id(),
                   described.status().ToString());
      continue;
    }
    if (!google::protobuf::util::MessageDifferencer::Equals(*described, run->second)) {
      VERNIER_RETURN_IF_ERROR(storage_.PutTrialRun(job.job_id(), *described));
      run->second = *described;
    }

    // A worker, parameter server or evaluator that fails fails the trial; one
    // that exits 0 before the master is fine.
    std::string failure;
    {
      absl::MutexLock lock(&mutex_);
      TrialAttempt& attempt = attempts_[key];
      if (attempt.being_ended()) continue;
      if (attempt.reported_failure.has_value()) failure = *attempt.reported_failure;
      for (const v1::ReplicaStatus& replica : run->second.replicas()) {
        if (!failure.empty() || trial.state() != v1::Trial::ACTIVE || IsMaster(replica.role())) {
          continue;
        }
        const std::string name = ReplicaName(replica.role(), replica.index());
        if (replica.state() == v1::ReplicaStatus::LOST) {
          // Started by an earlier server, its exit status is unknown: a
          // failure only if its agent sends no report and the master still
          // runs a while later.
          auto [since, inserted] = attempt.lost_since.emplace(name, now);
          if (now - std::max(since->second, reachable_since) >= options_.lost_replica_timeout) {
            attempt.lost_since.erase(since);
            failure = absl::StrFormat("%s vanished; see %s", name, replica.log_path());
          }
        } else if (replica.state() == v1::ReplicaStatus::EXITED &&
                   (replica.exit_code() != 0 || replica.term_signal() != 0)) {
          failure = absl::StrFormat(
              "%s; see %s", ExitDescription(name, replica.exit_code(), replica.term_signal()),
              replica.log_path());
        }
      }
    }
    if (!failure.empty()) {
      HandleReplicaFailure(job, trial, run->second, failure);
      continue;
    }

    const v1::ReplicaStatus* master = MasterOf(run->second);
    const bool gone = scheduler::ReplicaEnded(*master);
    {
      absl::MutexLock lock(&mutex_);
      TrialAttempt& attempt = attempts_[key];
      if (!gone) {
        attempt.master_gone_since.reset();
        continue;
      }
      // The agent reports the outcome before it exits; give a report in
      // flight a moment before declaring the replica lost.
      if (!attempt.master_gone_since.has_value()) attempt.master_gone_since = now;
      if (now - std::max(*attempt.master_gone_since, reachable_since) <
          options_.lost_replica_timeout) {
        continue;
      }
      attempt.master_gone_since.reset();
    }
    const std::string what =
        master->state() == v1::ReplicaStatus::LOST
            ? absl::StrFormat("%s vanished", ReplicaName(master->role(), master->index()))
            : ExitDescription(ReplicaName(master->role(), master->index()), master->exit_code(),
                              master->term_signal());
    HandleReplicaFailure(job, trial, run->second,
                         absl::StrFormat("%s without its agent reporting the outcome; see %s", what,
                                         master->log_path()));
  }
  return absl::OkStatus();
}

bool TrialRunSupervisor::AwaitsItsAgents(const v1::Job& job, v1::Trial& trial, v1::TrialRun& run,
                                         absl::Time now, absl::Time reachable_since) {
  const TrialKey key{job.job_id(), trial.id()};
  {
    absl::MutexLock lock(&mutex_);
    // This server's own launch, waiting for the backend: it submits it
    // again itself.
    auto attempt = attempts_.find(key);
    if (attempt != attempts_.end() && attempt->second.state == TrialAttemptState::kWaiting) {
      return false;
    }
  }
  // What was submitted for it, found by the backend: from now on a run like
  // any other, described and cancelled through the backend.
  absl::StatusOr<std::optional<v1::TrialRun>> submitted =
      backend_.FindSubmitted(job.job_id(), job.study_name(), run);
  if (!submitted.ok()) {
    // Not knowing, the run is kept: relaunching it might run it twice.
    spdlog::warn("job={} trial={} attempt={} cannot look for what was submitted for its run: {}",
                 job.job_id(), trial.id(), run.attempt(), submitted.status().ToString());
    return true;
  }
  if (submitted->has_value()) {
    TakeOverSubmitted(job, trial, run, **submitted);
    return true;
  }
  const absl::Time launched = FromTimestamp(run.launch_time());
  // The latest any of its agents was heard since its launch, here or by
  // another server sharing the store.
  std::optional<absl::Time> heard;
  std::string heard_name;
  // Its replicas whose agents were heard since its launch run: the stored
  // run says so, for `vernier jobs describe` and the dashboard.
  bool started = false;
  for (v1::ReplicaStatus& replica : *run.mutable_replicas()) {
    const std::string name = ReplicaName(replica.role(), replica.index());
    std::optional<absl::Time> last =
        liveness_.LastHeard({job.study_name(), trial.id(), replica.role(), replica.index()});
    absl::StatusOr<std::optional<absl::Duration>> elsewhere =
        storage_.AgentContactAge(job.job_id(), trial.id(), name);
    if (!elsewhere.ok()) {
      // Not knowing, the run is kept: relaunching it might run it twice.
      spdlog::warn("job={} trial={} cannot read when {} was last heard: {}", job.job_id(),
                   trial.id(), name, elsewhere.status().ToString());
      return true;
    }
    if (elsewhere->has_value() && (!last.has_value() || now - **elsewhere > *last)) {
      last = now - **elsewhere;
    }
    if (!last.has_value() || *last <= launched) continue;
    if (replica.state() == v1::ReplicaStatus::PENDING) {
      replica.set_state(v1::ReplicaStatus::RUNNING);
      started = true;
    }
    if (!heard.has_value() || *last > *heard) {
      heard = *last;
      heard_name = name;
    }
  }
  if (started) {
    if (absl::Status status = storage_.PutTrialRun(job.job_id(), run); !status.ok()) {
      spdlog::warn("job={} trial={} cannot store that its replicas run: {}", job.job_id(),
                   trial.id(), status.ToString());
    }
  }
  const absl::Duration timeout = options_.agent_timeout > absl::ZeroDuration()
                                     ? options_.agent_timeout
                                     : options_.lost_replica_timeout;
  // With one agent heard, a replica whose agent was never heard within the
  // timeout of the launch never started (its server died while starting
  // the replicas): the trial cannot run as it should (a master may wait for
  // its workers forever).
  if (heard.has_value() && now - std::max(launched, reachable_since) >= timeout) {
    for (const v1::ReplicaStatus& replica : run.replicas()) {
      if (replica.state() != v1::ReplicaStatus::PENDING) continue;
      const std::string reason = absl::StrFormat(
          "%s never started: its agent was not heard within %s of the launch, while %s's was; %s",
          ReplicaName(replica.role(), replica.index()), absl::FormatDuration(timeout), heard_name,
          UnreachableProcesses(run.trial_dir()));
      spdlog::error("job={} trial={} {}", job.job_id(), trial.id(), reason);
      {
        absl::MutexLock lock(&mutex_);
        awaited_runs_.erase(key);
      }
      absl::StatusOr<v1::Trial> failed = studies_.FailTrial(job.study_name(), trial.id(), reason);
      if (failed.ok()) trial = *failed;
      return true;
    }
  }
  const absl::Time since = std::max(heard.value_or(launched), reachable_since);
  const absl::Duration silent = std::max(absl::ZeroDuration(), now - since);
  if (silent < timeout) {
    // Logged when first kept, and again once an agent is first heard.
    bool news = false;
    {
      absl::MutexLock lock(&mutex_);
      AwaitedRun& awaited = awaited_runs_[key];
      const AwaitedRun now_logged = heard.has_value() ? AwaitedRun::kHeard : AwaitedRun::kWaiting;
      news = awaited < now_logged;
      awaited = std::max(awaited, now_logged);
    }
    if (news) {
      spdlog::warn(
          "job={} trial={} attempt={} its run was stored without a backend handle by a server "
          "that stopped or died while launching it; {}",
          job.job_id(), trial.id(), run.attempt(),
          heard.has_value()
              ? absl::StrFormat("its agent %s is heard: it runs on its agents' reports", heard_name)
              : absl::StrFormat("waiting up to %s for its agents before launching it again",
                                absl::FormatDuration(timeout)));
    }
    return true;
  }
  {
    absl::MutexLock lock(&mutex_);
    awaited_runs_.erase(key);
  }
  if (!heard.has_value()) {
    spdlog::warn(
        "job={} trial={} attempt={} no agent of its run, stored without a backend handle, was "
        "heard within {} of its launch: it never started and is launched again",
        job.job_id(), trial.id(), run.attempt(), absl::FormatDuration(timeout));
    return false;
  }
  const std::string reason =
      SilentAgentReason(heard_name, silent, timeout, UnreachableProcesses(run.trial_dir()));
  spdlog::error("job={} trial={} {}", job.job_id(), trial.id(), reason);
  absl::StatusOr<v1::Trial> failed = studies_.FailTrial(job.study_name(), trial.id(), reason);
  if (failed.ok()) trial = *failed;
  return true;
}

void TrialRunSupervisor::TakeOverSubmitted(const v1::Job& job, const v1::Trial& trial,
                                           v1::TrialRun& run, const v1::TrialRun& submitted) {
  // Read again, so that an exit its agent reported since this pass read it
  // is kept.
  std::optional<v1::TrialRun> stored = StoredRunWithoutHandle(job.job_id(), trial.id());
  if (!stored.has_value() || stored->replicas_size() != submitted.replicas_size()) return;
  v1::TrialRun taken = *std::move(stored);
  taken.set_backend_handle(submitted.backend_handle());
  for (int i = 0; i < taken.replicas_size(); ++i) {
    v1::ReplicaStatus& replica = *taken.mutable_replicas(i);
    const v1::ReplicaStatus& found = submitted.replicas(i);
    replica.set_host(found.host());
    replica.set_pid(found.pid());
    if (replica.state() == v1::ReplicaStatus::PENDING) replica.set_state(found.state());
  }
  if (absl::Status status = storage_.PutTrialRun(job.job_id(), taken); !status.ok()) {
    spdlog::warn("job={} trial={} cannot store the backend handle {} found for its run: {}",
                 job.job_id(), trial.id(), taken.backend_handle(), status.ToString());
    return;
  }
  {
    absl::MutexLock lock(&mutex_);
    awaited_runs_[{job.job_id(), trial.id()}] = AwaitedRun::kTakenOver;
  }
  spdlog::warn(
      "job={} trial={} attempt={} its run was stored without a backend handle by a server that "
      "stopped or died while launching it; the backend found what was submitted for it ({}): "
      "taken over, not launched again",
      job.job_id(), trial.id(), taken.attempt(), taken.backend_handle());
  run = std::move(taken);
}

void TrialRunSupervisor::HandleReplicaFailure(const v1::Job& job, v1::Trial& trial,
                                              const v1::TrialRun& run, const std::string& reason) {
  const TrialKey key{job.job_id(), trial.id()};
  const int max_retries = job.training_input().scheduling().max_retries();
  const bool retry = run.attempt() < max_retries;
  if (retry) {
    spdlog::warn(
        "job={} trial={} attempt {} failed: {}; ending its replicas and relaunching them all "
        "with the same job dir (retry {} of {})",
        job.job_id(), trial.id(), run.attempt(), reason, run.attempt() + 1, max_retries);
  }
  {
    absl::MutexLock lock(&mutex_);
    TrialAttempt& attempt = attempts_[key];
    attempt.reported_failure.reset();
    if (retry) {
      // The trial keeps its GPUs and ports for the next attempt.
      attempt.state = TrialAttemptState::kRetrying;
      attempt.attempt = run.attempt() + 1;
      cancellers_.emplace_back([this, key, run, fence = CurrentFence()] {
        std::optional<storage::ScopedWriteFence> fenced;
        if (fence.has_value()) fenced.emplace(*fence);
        if (absl::Status status = CancelRun(run); !status.ok()) {
          spdlog::error("job={} trial={} cannot end attempt {}: {}", key.job_id, key.trial_id,
                        run.attempt(), status.ToString());
        }
        RecordEndedRun(key.job_id, run);
        absl::MutexLock lock(&mutex_);
        auto attempt = attempts_.find(key);
        if (attempt != attempts_.end()) attempt->second.state = TrialAttemptState::kRelaunch;
      });
      return;
    }
  }
  absl::StatusOr<v1::Trial> failed = studies_.FailTrial(
      job.study_name(), trial.id(),
      max_retries > 0 ? absl::StrFormat("%s (after %d retries)", reason, max_retries) : reason);
  // Its other replicas are ended by SettleEndedTrials.
  if (failed.ok()) trial = *failed;
}

void TrialRunSupervisor::RecordEndedRun(const std::string& job_id, const v1::TrialRun& run) {
  absl::StatusOr<v1::TrialRun> described = backend_.Describe(run);
  if (!described.ok()) {
    spdlog::warn("job={} trial={} cannot describe its ended run: {}", job_id, run.trial_id(),
                 described.status().ToString());
    return;
  }
  if (absl::Status status = storage_.PutTrialRun(job_id, *described); !status.ok()) {
    spdlog::error("job={} trial={} cannot store its ended run: {}", job_id, run.trial_id(),
                  status.ToString());
  }
}

void TrialRunSupervisor::ReleaseAttempt(const TrialKey& key) {
  v1::AgentScope scope;
  std::string credential_dir;
  {
    absl::MutexLock lock(&mutex_);
    auto attempt = attempts_.find(key);
    if (attempt == attempts_.end()) return;
    if (attempt->second.ticket.has_value()) admission_.Release(*attempt->second.ticket);
    scope = AgentScopeOf(key, attempt->second.attempt);
    credential_dir = attempt->second.credential_dir;
    attempts_.erase(attempt);
  }
  // The attempt ended: its agents' credential dies with it.
  agent_credentials_.Revoke(scope, credential_dir);
}

bool TrialRunSupervisor::SettleEndedTrials(const v1::Job& job, const std::vector<v1::Trial>& trials,
                                           TrialRuns& runs) {
  bool settled = true;
  bool backend_away = false;
  for (const v1::Trial& trial : trials) {
    if (IsRunning(trial.state())) continue;
    const TrialKey key{job.job_id(), trial.id()};
    {
      absl::MutexLock lock(&mutex_);
      auto attempt = attempts_.find(key);
      if (attempt != attempts_.end()) {
        attempt->second.reported_failure.reset();
        if (attempt->second.being_ended()) {
          settled = false;
          continue;
        }
      }
    }
    auto run = runs.find(trial.id());
    if (run != runs.end() && MayRunWithoutHandle(run->second)) {
      // Its trial ended: how the replicas whose agents reported no exit
      // ended is not known. (Read again: an exit report may have come since
      // the pass read it.)
      if (std::optional<v1::TrialRun> stored = StoredRunWithoutHandle(job.job_id(), trial.id())) {
        run->second = *std::move(stored);
        for (v1::ReplicaStatus& replica : *run->second.mutable_replicas()) {
          if (IsLive(replica)) replica.set_state(v1::ReplicaStatus::LOST);
        }
        (void)storage_.PutTrialRun(job.job_id(), run->second);
      }
    }
    if (run == runs.end() || !HasLiveReplica(run->second)) {
      ReleaseAttempt(key);
      continue;
    }
    // Its replicas may still run: settled once the backend is back (asked
    // once per pass while it is away).
    if (backend_away) {
      settled = false;
      continue;
    }
    absl::StatusOr<v1::TrialRun> described = backend_.Describe(run->second);
    if (WaitsForBackend(described.status())) {
      backend_away = true;
      settled = false;
      continue;
    }
    if (!described.ok()) {
      spdlog::warn("job={} trial={} cannot describe its run; freeing its GPUs and ports: {}",
                   job.job_id(), trial.id(), described.status().ToString());
      ReleaseAttempt(key);
      continue;
    }
    if (!google::protobuf::util::MessageDifferencer::Equals(*described, run->second)) {
      (void)storage_.PutTrialRun(job.job_id(), *described);
      run->second = *described;
    }
    // Still PENDING after its trial ended: a backend's queue (Slurm) still
    // holds it, or its state is not known yet; the cancel settles both.
    if (!HasLiveReplica(run->second)) {
      ReleaseAttempt(key);
      continue;
    }
    // Parameter servers never exit by themselves, and workers may outlive
    // a master that ended.
    settled = false;
    CancelTrials(job, {trial}, runs, absl::StrFormat("trial %d ended", trial.id()));
  }
  return settled;
}

void TrialRunSupervisor::OnAgentContact(const v1::ReplicaId& replica) {
  liveness_.Heard({replica.study_name(), replica.trial_id(), replica.role(), replica.index()},
                  clock_());
}

void TrialRunSupervisor::FailSilentAgents(const v1::Job& job, std::vector<v1::Trial>& trials,
                                          const TrialRuns& runs) {
  const absl::Time now = clock_();
  // Time the store was away does not count: the agents' calls failed. Nor
  // time slurmctld was away: a replica's step may be waiting for it to
  // start (the batch script waits), and nothing could end a silent one.
  const absl::Time reachable_since = std::max(StoreReachableSince(now), BackendReachableSince(now));
  std::set<int64_t> running;
  for (v1::Trial& trial : trials) {
    auto run = runs.find(trial.id());
    if (!IsRunning(trial.state()) || run == runs.end()) continue;
    running.insert(trial.id());
    // A run without a handle is judged by AwaitsItsAgents.
    if (run->second.backend_handle().empty()) continue;
    {
      absl::MutexLock lock(&mutex_);
      auto attempt = attempts_.find({job.job_id(), trial.id()});
      if (attempt != attempts_.end() && attempt->second.being_ended()) continue;
    }
    for (const v1::ReplicaStatus& replica : run->second.replicas()) {
      const AgentLiveness::Replica key{job.study_name(), trial.id(), replica.role(),
                                       replica.index()};
      // Queued (not started) or gone replicas are not expected to speak;
      // the lost-replica check handles the gone ones.
      if (replica.state() != v1::ReplicaStatus::RUNNING) {
        liveness_.Forget(key);
        continue;
      }
      absl::Duration silent = std::min(liveness_.SilentFor(key, now), now - reachable_since);
      if (options_.agent_timeout <= absl::ZeroDuration() || silent < options_.agent_timeout) {
        continue;
      }
      // It may have been talking to another server sharing the store.
      const std::string name = ReplicaName(replica.role(), replica.index());
      absl::StatusOr<std::optional<absl::Duration>> elsewhere =
          storage_.AgentContactAge(job.job_id(), trial.id(), name);
      if (!elsewhere.ok()) {
        spdlog::warn("job={} trial={} cannot read when {} was last heard: {}", job.job_id(),
                     trial.id(), name, elsewhere.status().ToString());
        continue;
      }
      if (elsewhere->has_value() && **elsewhere < silent) {
        liveness_.Heard(key, now - **elsewhere);
        silent = **elsewhere;
        if (silent < options_.agent_timeout) continue;
      }
      const std::string reason = SilentAgentReason(
          ReplicaName(replica.role(), replica.index()), silent, options_.agent_timeout,
          absl::StrCat("its processes are being ended; see ", replica.log_path()));
      spdlog::error("job={} trial={} {}", job.job_id(), trial.id(), reason);
      absl::StatusOr<v1::Trial> failed = studies_.FailTrial(job.study_name(), trial.id(), reason);
      if (!failed.ok()) break;
      trial = *failed;
      CancelTrials(job, {trial}, runs, reason);
      running.erase(trial.id());
      break;
    }
  }
  liveness_.RetainTrials(job.study_name(), running);
}

void TrialRunSupervisor::CancelTrials(const v1::Job& job, const std::vector<v1::Trial>& trials,
                                      const TrialRuns& runs, const std::string& reason) {
  JoinFinishedCancellers();
  for (const v1::Trial& trial : trials) {
    auto run = runs.find(trial.id());
    if (run == runs.end()) {
      (void)studies_.CancelTrial(job.study_name(), trial.id(), reason);
      continue;
    }
    const TrialKey key{job.job_id(), trial.id()};
    absl::MutexLock lock(&mutex_);
    TrialAttempt& attempt = attempts_[key];
    if (attempt.being_ended()) continue;
    attempt.state = TrialAttemptState::kEnding;
    cancellers_.emplace_back(
        [this, key, study = job.study_name(), run = run->second, reason, fence = CurrentFence()] {
          // Its writes carry the lease of the pass that started it.
          std::optional<storage::ScopedWriteFence> fenced;
          if (fence.has_value()) fenced.emplace(*fence);
          spdlog::info("job={} trial={} stopping its replicas", key.job_id, key.trial_id);
          if (absl::Status status = CancelRun(run); !status.ok()) {
            spdlog::error("job={} trial={} cancel failed: {}", key.job_id, key.trial_id,
                          status.ToString());
          }
          RecordEndedRun(key.job_id, run);
          // The agent usually reports first; then this is a no-op.
          (void)studies_.CancelTrial(study, key.trial_id, reason);
          absl::MutexLock lock(&mutex_);
          auto attempt = attempts_.find(key);
          if (attempt != attempts_.end()) attempt->second.state = TrialAttemptState::kEnded;
        });
  }
}

void TrialRunSupervisor::JoinFinishedCancellers() {
  // Threads are joined once no trial's replicas are being ended: then every
  // thread has finished.
  std::vector<std::thread> finished;
  {
    absl::MutexLock lock(&mutex_);
    for (const auto& [key, attempt] : attempts_) {
      if (attempt.being_ended()) return;
    }
    finished.swap(cancellers_);
  }
  for (std::thread& thread : finished) thread.join();
}

absl::Status TrialRunSupervisor::ResumeTrials(const v1::Job& job, const v1::Study& study,
                                              const std::vector<v1::Trial>& running,
                                              const TrialRuns& runs) {
  for (const v1::Trial& trial : running) {
    const TrialKey key{job.job_id(), trial.id()};
    {
      absl::MutexLock lock(&mutex_);
      auto attempt = attempts_.find(key);
      if (attempt != attempts_.end()) {
        if (attempt->second.state == TrialAttemptState::kRetrying) continue;
        // Its gang is queued (or its launch waits for the backend):
        // StartTrials launches it once granted.
        if (attempt->second.state == TrialAttemptState::kWaiting &&
            attempt->second.ticket.has_value()) {
          continue;
        }
        if (attempt->second.state == TrialAttemptState::kRelaunch) {
          // Its failed attempt has ended: the next one runs.
          auto run = runs.find(trial.id());
          attempt->second.attempt = run != runs.end() ? run->second.attempt() + 1 : 0;
        } else if (runs.contains(trial.id())) {
          continue;
        }
      } else if (runs.contains(trial.id())) {
        continue;
      }
    }
    // Handed out but never started, or between two attempts.
    VERNIER_RETURN_IF_ERROR(LaunchWhenGranted(job, study, trial));
  }
  return absl::OkStatus();
}

absl::Status TrialRunSupervisor::LaunchWhenGranted(const v1::Job& job, const v1::Study& study,
                                                   const v1::Trial& trial) {
  const TrialKey key{job.job_id(), trial.id()};
  std::optional<scheduler::GangTicket> ticket;
  int attempt_number = 0;
  {
    absl::MutexLock lock(&mutex_);
    TrialAttempt& attempt = attempts_[key];
    attempt.state = TrialAttemptState::kWaiting;
    ticket = attempt.ticket;
    attempt_number = attempt.attempt;
  }
  if (!ticket.has_value()) {
    absl::StatusOr<scheduler::GangTicket> requested =
        admission_.Request(GangShape(job), GangOwnerOf(job));
    if (!requested.ok()) {
      spdlog::error("job={} trial={} cannot queue for GPUs: {}", job.job_id(), trial.id(),
                    requested.status().ToString());
      return absl::OkStatus();
    }
    ticket = *requested;
    absl::MutexLock lock(&mutex_);
    attempts_[key].ticket = ticket;
  }
  if (!admission_.IsGranted(*ticket)) return absl::OkStatus();
  return LaunchTrial(job, study, trial, attempt_number, *ticket);
}

int TrialRunSupervisor::WaitingGangs(const std::string& job_id) {
  absl::MutexLock lock(&mutex_);
  auto waiting = waiting_gangs_.find(job_id);
  return waiting == waiting_gangs_.end() ? 0 : static_cast<int>(waiting->second.size());
}

absl::Status TrialRunSupervisor::StartTrials(const v1::Job& job, const v1::Study& study,
                                             const std::vector<v1::Trial>& running,
                                             const TrialRuns& runs, int slots,
                                             StartedTrials& started) {
  const std::string& job_id = job.job_id();
  const std::vector<int> shape = GangShape(job);
  const scheduler::GangOwner owner = GangOwnerOf(job);
  bool exhausted;
  {
    absl::MutexLock lock(&mutex_);
    exhausted = exhausted_jobs_.contains(job_id);
  }
  // Each free slot queues a gang for the job's replica shape; only a granted
  // gang gets a suggestion, so no trial is handed out that cannot start.
  for (int slot = 0; slot < slots; ++slot) {
    absl::StatusOr<scheduler::GangTicket> ticket = admission_.Request(shape, owner);
    if (!ticket.ok()) {
      spdlog::error("job={} cannot queue for GPUs: {}", job_id, ticket.status().ToString());
      break;
    }
    // A study that ran out of trials keeps no gang waiting for one.
    if (exhausted && !admission_.IsGranted(*ticket)) {
      admission_.Release(*ticket);
      break;
    }
    absl::MutexLock lock(&mutex_);
    waiting_gangs_[job_id].push_back(*ticket);
  }
  admission_.Schedule();

  // Trials handed out before a restart whose gang was granted now.
  for (const v1::Trial& trial : running) {
    if (runs.contains(trial.id())) continue;
    std::optional<scheduler::GangTicket> ticket;
    int attempt_number = 0;
    {
      absl::MutexLock lock(&mutex_);
      auto attempt = attempts_.find({job_id, trial.id()});
      if (attempt == attempts_.end() || attempt->second.state != TrialAttemptState::kWaiting ||
          !attempt->second.ticket.has_value()) {
        continue;
      }
      ticket = attempt->second.ticket;
      attempt_number = attempt->second.attempt;
    }
    if (!admission_.IsGranted(*ticket)) continue;
    spdlog::info("job={} trial={} granted GPUs after waiting", job_id, trial.id());
    VERNIER_RETURN_IF_ERROR(LaunchTrial(job, study, trial, attempt_number, *ticket));
  }

  std::vector<scheduler::GangTicket> granted;
  {
    absl::MutexLock lock(&mutex_);
    std::vector<scheduler::GangTicket>& waiting = waiting_gangs_[job_id];
    std::vector<scheduler::GangTicket> still_waiting;
    for (scheduler::GangTicket ticket : waiting) {
      (admission_.IsGranted(ticket) ? granted : still_waiting).push_back(ticket);
    }
    waiting = std::move(still_waiting);
  }
  if (granted.empty()) return absl::OkStatus();
  absl::StatusOr<SuggestResult> suggested =
      studies_.SuggestTrials(job.study_name(), static_cast<int>(granted.size()), "");
  const size_t given = suggested.ok() ? suggested->trials.size() : 0;
  for (size_t i = given; i < granted.size(); ++i) admission_.Release(granted[i]);
  if (!suggested.ok()) return suggested.status();
  if (given < granted.size()) {
    started.shortfall = suggested->reason;
    absl::MutexLock lock(&mutex_);
    exhausted_jobs_.insert(job_id);
  }
  for (size_t i = 0; i < given; ++i) {
    const v1::Trial& trial = suggested->trials[i];
    {
      absl::MutexLock lock(&mutex_);
      TrialAttempt& attempt = attempts_[{job_id, trial.id()}];
      attempt.state = TrialAttemptState::kWaiting;
      attempt.ticket = granted[i];
    }
    VERNIER_RETURN_IF_ERROR(LaunchTrial(job, study, trial, 0, granted[i]));
    ++started.launched;
  }
  return absl::OkStatus();
}

absl::Status TrialRunSupervisor::LaunchTrial(const v1::Job& job, const v1::Study& study,
                                             const v1::Trial& trial, int attempt,
                                             scheduler::GangTicket ticket) {
  const TrialKey key{job.job_id(), trial.id()};
  absl::StatusOr<scheduler::GangGrant> grant = admission_.Grant(ticket);
  ReplicaGrants grants;
  grants.server_grants_gpus = admission_.GrantsGpus();
  if (grant.ok()) {
    grants.gpus = grant->gpus;
    grants.ports = grant->ports;
  }
  scheduler::TrialLaunch launch =
      BuildTrialLaunch(job, study, trial, options_.launch, attempt, grants);
  // The agents' credential for this attempt, in a 0600 file (never on a
  // command line); the one of the attempt before dies.
  if (attempt > 0) agent_credentials_.Revoke(AgentScopeOf(key, attempt - 1), launch.trial_dir);
  VERNIER_ASSIGN_OR_RETURN(const std::string credential_file,
                           agent_credentials_.Issue(AgentScopeOf(key, attempt), launch.trial_dir));
  for (scheduler::ReplicaLaunch& replica : launch.replicas) {
    replica.env[kAgentTokenFileVariable] = credential_file;
  }
  {
    absl::MutexLock lock(&mutex_);
    attempts_[key].credential_dir = launch.trial_dir;
  }
  v1::TrialRun pending;
  pending.set_trial_id(trial.id());
  pending.set_trial_dir(launch.trial_dir);
  pending.set_attempt(launch.attempt);
  *pending.mutable_launch_time() = ToTimestamp(clock_());
  for (size_t i = 0; i < launch.replicas.size(); ++i) {
    const scheduler::ReplicaLaunch& replica = launch.replicas[i];
    v1::ReplicaStatus* status = pending.add_replicas();
    status->set_role(replica.role);
    status->set_index(replica.index);
    status->set_state(v1::ReplicaStatus::PENDING);
    status->set_log_path(replica.log_path);
    for (int gpu : replica.gpus) status->add_gpus(gpu);
    if (i < grants.ports.size()) status->set_port(grants.ports[i]);
  }
  // Recorded first, so a restart knows this trial was being started.
  VERNIER_RETURN_IF_ERROR(storage_.PutTrialRun(job.job_id(), pending));
  absl::StatusOr<v1::TrialRun> run =
      grant.ok() ? backend_.Submit(launch) : absl::StatusOr<v1::TrialRun>(grant.status());
  if (!run.ok() && WaitsForBackend(run.status())) {
    // Nothing was submitted (or the backend finds what was, next time): the
    // trial keeps its grant and the next pass submits it again. Its stored
    // run has no backend handle, so nothing counts it as running meanwhile.
    spdlog::debug("job={} trial={} attempt={} waits for the backend to submit it: {}", job.job_id(),
                  trial.id(), attempt, run.status().ToString());
    absl::MutexLock lock(&mutex_);
    TrialAttempt& record = attempts_[key];
    record.state = TrialAttemptState::kWaiting;
    record.attempt = attempt;
    record.ticket = ticket;
    return absl::OkStatus();
  }
  if (!run.ok()) {
    spdlog::error("job={} trial={} could not start: {}", job.job_id(), trial.id(),
                  run.status().ToString());
    {
      absl::MutexLock lock(&mutex_);
      TrialAttempt& record = attempts_[key];
      record.ticket.reset();
      record.state = TrialAttemptState::kEnded;
    }
    admission_.Release(ticket);
    for (v1::ReplicaStatus& replica : *pending.mutable_replicas()) {
      replica.set_state(v1::ReplicaStatus::LOST);
    }
    VERNIER_RETURN_IF_ERROR(storage_.PutTrialRun(job.job_id(), pending));
    return studies_
        .FailTrial(job.study_name(), trial.id(),
                   scheduler::IsTransientBackendError(run.status())
                       ? absl::StrCat("could not start the trial: Slurm stayed unreachable for "
                                      "longer than --slurm-outage-limit (",
                                      absl::FormatDuration(options_.slurm_outage_limit),
                                      "): ", run.status().message())
                       : absl::StrCat("could not start the trial: ", run.status().message()))
        .status();
  }
  run->set_trial_id(trial.id());
  run->set_trial_dir(launch.trial_dir);
  run->set_attempt(launch.attempt);
  *run->mutable_launch_time() = pending.launch_time();
  for (int i = 0; i < run->replicas_size() && i < static_cast<int>(grants.ports.size()); ++i) {
    run->mutable_replicas(i)->set_port(grants.ports[i]);
  }
  {
    absl::MutexLock lock(&mutex_);
    TrialAttempt& record = attempts_[key];
    record.state = TrialAttemptState::kRunning;
    record.attempt = attempt;
    record.ticket = ticket;
  }
  spdlog::info("job={} trial={} attempt={} launched {} replica(s): {}", job.job_id(), trial.id(),
               attempt, launch.replicas.size(),
               suggest::FormatAssignment({trial.parameters().begin(), trial.parameters().end()}));
  absl::Status stored = StoreLaunchedRun(job.job_id(), *run);
  if (!stored.ok()) EndIfLaunchedAgain(job.job_id(), *run);
  return stored;
}

void TrialRunSupervisor::EndIfLaunchedAgain(const std::string& job_id, const v1::TrialRun& run) {
  const int64_t trial_id = run.trial_id();
  absl::StatusOr<std::optional<v1::TrialRun>> stored = StoredRun(job_id, trial_id);
  if (!stored.ok()) {
    spdlog::warn(
        "job={} trial={} cannot read whether it was launched again meanwhile; its replicas are "
        "left running, found again from the run stored before the launch: {}",
        job_id, trial_id, stored.status().ToString());
    return;
  }
  if (stored->has_value() && (*stored)->attempt() == run.attempt() &&
      FromTimestamp((*stored)->launch_time()) == FromTimestamp(run.launch_time())) {
    // Still this launch's record: whoever drives the job next finds what
    // was submitted for it (AwaitsItsAgents).
    return;
  }
  // The server driving the job now (this one stalled past its lease)
  // launched the trial again: this launch's replicas must not run beside
  // that one's.
  spdlog::error(
      "job={} trial={} attempt={} was launched again while this server was stopped, before it "
      "could store this launch's run; ending this launch's replicas ({})",
      job_id, trial_id, run.attempt(), run.backend_handle());
  if (absl::Status status = CancelRun(run); !status.ok()) {
    spdlog::error("job={} trial={} cannot end the replicas of its superseded launch ({}): {}",
                  job_id, trial_id, run.backend_handle(), status.ToString());
  }
}

absl::Status TrialRunSupervisor::StoreLaunchedRun(const std::string& job_id,
                                                  const v1::TrialRun& run) {
  const absl::Time started = clock_();
  absl::Duration backoff = absl::Milliseconds(100);
  for (;;) {
    absl::Status status = storage_.PutTrialRun(job_id, run);
    if (!storage::IsTransientStoreError(status) || interrupted_ ||
        clock_() - started >= options_.store_outage_limit) {
      if (!status.ok()) {
        spdlog::error("job={} trial={} its replicas run but their run could not be stored: {}",
                      job_id, run.trial_id(), status.ToString());
      }
      return status;
    }
    absl::SleepFor(backoff);
    backoff = std::min(backoff * 2, absl::Seconds(2));
  }
}

bool TrialRunSupervisor::WaitsForBackend(const absl::Status& status) const {
  if (!scheduler::IsTransientBackendError(status)) return false;
  const std::optional<absl::Time> since = backend_.UnreachableSince();
  // A single failed call, the outage already over: the next pass retries.
  if (!since.has_value()) return true;
  return absl::Now() - *since < options_.slurm_outage_limit;
}

absl::Status TrialRunSupervisor::CancelRun(const v1::TrialRun& run) {
  absl::Duration backoff = absl::Seconds(1);
  for (;;) {
    absl::Status status = backend_.Cancel(run, options_.launch.grace_period);
    if (!WaitsForBackend(status) || interrupted_) return status;
    absl::SleepFor(backoff);
    backoff = std::min(backoff * 2, absl::Seconds(10));
  }
}

absl::Time TrialRunSupervisor::BackendReachableSince(absl::Time now) const {
  if (backend_.UnreachableSince().has_value()) return now;
  return backend_.LastOutageEnded();
}

absl::Time TrialRunSupervisor::StoreReachableSince(absl::Time now) {
  if (storage_.outage().Since().has_value()) return now;
  return storage_.outage().LastEnded();
}

absl::Status TrialRunSupervisor::CheckReport(const v1::ReportExitRequest& report) {
  const v1::ReplicaId& replica = report.replica();
  const std::string name = ReplicaName(replica.role(), replica.index());
  // A job's study is named after it.
  absl::StatusOr<v1::Job> job = storage_.GetJob(replica.study_name());
  if (!job.ok()) {
    if (!absl::IsNotFound(job.status())) return job.status();
    return absl::NotFoundError(
        absl::StrFormat("study \"%s\" is not run by a job", replica.study_name()));
  }
  VERNIER_ASSIGN_OR_RETURN(const std::optional<v1::TrialRun> run,
                           StoredRun(job->job_id(), replica.trial_id()));
  if (!run.has_value()) {
    return absl::NotFoundError(
        absl::StrFormat("job \"%s\" never launched trial %d", job->job_id(), replica.trial_id()));
  }
  std::vector<std::string> names;
  bool found = false;
  for (const v1::ReplicaStatus& status : run->replicas()) {
    names.push_back(ReplicaName(status.role(), status.index()));
    found = found || names.back() == name;
  }
  if (!found) {
    return absl::NotFoundError(absl::StrFormat(
        "job \"%s\" trial %d has no replica %s (its replicas: %s); the report was refused",
        job->job_id(), replica.trial_id(), name, absl::StrJoin(names, ", ")));
  }
  if (replica.attempt() != run->attempt()) {
    return absl::FailedPreconditionError(absl::StrFormat(
        "job \"%s\" trial %d runs attempt %d, not attempt %d that %s reported for; the report "
        "was ignored",
        job->job_id(), replica.trial_id(), run->attempt(), replica.attempt(), name));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::optional<v1::TrialRun>> TrialRunSupervisor::StoredRun(const std::string& job_id,
                                                                          int64_t trial_id) {
  VERNIER_ASSIGN_OR_RETURN(std::vector<v1::TrialRun> runs,
                           storage_.ListTrialRunsOf(job_id, {&trial_id, 1}));
  if (runs.empty()) return std::nullopt;
  return std::move(runs.front());
}

std::optional<v1::TrialRun> TrialRunSupervisor::StoredRunWithoutHandle(const std::string& job_id,
                                                                       int64_t trial_id,
                                                                       bool taken_over) {
  absl::StatusOr<std::optional<v1::TrialRun>> run = StoredRun(job_id, trial_id);
  if (!run.ok() || !run->has_value()) return std::nullopt;
  if (!MayRunWithoutHandle(**run) && !(taken_over && HasLiveReplica(**run))) return std::nullopt;
  return *std::move(run);
}

void TrialRunSupervisor::RecordExitWithoutHandle(const std::string& job_id,
                                                 const v1::ReportExitRequest& report,
                                                 bool taken_over) {
  const int64_t trial_id = report.replica().trial_id();
  std::optional<v1::TrialRun> stored = StoredRunWithoutHandle(job_id, trial_id, taken_over);
  if (!stored.has_value()) return;
  v1::TrialRun& run = *stored;
  for (v1::ReplicaStatus& replica : *run.mutable_replicas()) {
    if (replica.role() != report.replica().role() || replica.index() != report.replica().index() ||
        !IsLive(replica)) {
      continue;
    }
    replica.set_state(v1::ReplicaStatus::EXITED);
    replica.set_exit_code(report.exit_code());
    replica.set_term_signal(report.term_signal());
    if (absl::Status status = storage_.PutTrialRun(job_id, run); !status.ok()) {
      spdlog::warn("job={} trial={} cannot store the exit of {}: {}", job_id, trial_id,
                   ReplicaName(replica.role(), replica.index()), status.ToString());
    }
    return;
  }
}

absl::Status TrialRunSupervisor::OnReplicaExit(const v1::ReportExitRequest& report) {
  const v1::ReplicaId& replica = report.replica();
  const std::string name = ReplicaName(replica.role(), replica.index());
  absl::StatusOr<v1::Job> job = storage_.GetJob(replica.study_name());
  if (!job.ok()) {
    // The store away is not a missing job: the agent retries.
    if (!absl::IsNotFound(job.status())) return job.status();
    return absl::NotFoundError(
        absl::StrFormat("study \"%s\" is not run by a job", replica.study_name()));
  }
  VERNIER_ASSIGN_OR_RETURN(v1::Study study, storage_.GetStudy(job->study_name()));
  VERNIER_ASSIGN_OR_RETURN(v1::Trial trial,
                           storage_.GetTrial(replica.study_name(), replica.trial_id(),
                                             /*include_measurements=*/true));
  spdlog::info("job={} trial={} {} reported: {}{}", job->job_id(), trial.id(), name,
               ExitDescription(name, report.exit_code(), report.term_signal()),
               report.stopped_by_request() ? " (stop requested)" : "");
  const TrialKey key{job->job_id(), trial.id()};
  std::optional<AwaitedRun> awaited;
  {
    absl::MutexLock lock(&mutex_);
    auto found = awaited_runs_.find(key);
    if (found != awaited_runs_.end()) awaited = found->second;
  }
  if (awaited.has_value()) {
    RecordExitWithoutHandle(job->job_id(), report, *awaited == AwaitedRun::kTakenOver);
  }
  const bool failed = report.exit_code() != 0 || report.term_signal() != 0;
  std::string failure = ExitDescription(name, report.exit_code(), report.term_signal());
  if (!report.log_tail().empty()) absl::StrAppend(&failure, "; last output:\n", report.log_tail());
  // A failure the next pass acts on: it ends the other replicas and retries
  // the trial, or fails it.
  const auto record_failure = [&] {
    absl::MutexLock lock(&mutex_);
    TrialAttempt& attempt = attempts_[key];
    if (!attempt.reported_failure.has_value()) attempt.reported_failure = failure;
  };
  {
    absl::MutexLock lock(&mutex_);
    // The failed attempt's replicas, ended for a retry.
    auto attempt = attempts_.find(key);
    if (attempt != attempts_.end() && attempt->second.restarting()) return absl::OkStatus();
  }
  if (!IsMaster(replica.role())) {
    if (failed && !report.stopped_by_request() && trial.state() == v1::Trial::ACTIVE &&
        job->state() != v1::Job::CANCELLING) {
      record_failure();
    }
    return absl::OkStatus();
  }
  if (!IsRunning(trial.state())) return absl::OkStatus();  // Decided already.

  const std::string objective =
      study.spec().metrics().empty() ? "" : study.spec().metrics(0).metric_id();
  const std::optional<v1::Measurement> last = LastObjectiveMeasurement(trial, objective);
  absl::StatusOr<v1::Trial> outcome;
  if (job->state() == v1::Job::CANCELLING) {
    outcome =
        studies_.CancelTrial(job->study_name(), trial.id(),
                             job->error_message().empty()
                                 ? absl::StrFormat("cancelled with job %s", job->job_id())
                                 : absl::StrFormat("ended because job %s failed", job->job_id()));
  } else if (report.stopped_by_request() && trial.state() == v1::Trial::STOPPING &&
             last.has_value()) {
    outcome = studies_.CompleteTrial(job->study_name(), trial.id(), last);
  } else if (!failed) {
    if (last.has_value()) {
      outcome = studies_.CompleteTrial(job->study_name(), trial.id(), last);
    } else {
      outcome = studies_.FailTrial(
          job->study_name(), trial.id(),
          MissingObjectiveMessage(trial, name, objective,
                                  job->training_input().hyperparameters().metric_regex()));
    }
  } else {
    if (!report.stopped_by_request() && job->training_input().scheduling().max_retries() > 0) {
      record_failure();
      return absl::OkStatus();
    }
    outcome = studies_.FailTrial(job->study_name(), trial.id(), std::move(failure));
  }
  // Another path may have decided the trial in the meantime; that is fine.
  if (!outcome.ok() && !absl::IsFailedPrecondition(outcome.status())) return outcome.status();
  return absl::OkStatus();
}

void TrialRunSupervisor::DropWaitingGangs(const std::string& job_id) {
  absl::MutexLock lock(&mutex_);
  auto waiting = waiting_gangs_.find(job_id);
  if (waiting == waiting_gangs_.end()) return;
  for (scheduler::GangTicket ticket : waiting->second) admission_.Release(ticket);
  waiting_gangs_.erase(waiting);
}

void TrialRunSupervisor::ForgetJob(const std::string& job_id) {
  DropWaitingGangs(job_id);
  absl::MutexLock lock(&mutex_);
  for (auto it = attempts_.lower_bound({job_id, std::numeric_limits<int64_t>::min()});
       it != attempts_.end() && it->first.job_id == job_id;) {
    if (it->second.being_ended()) {
      ++it;
      continue;
    }
    if (it->second.ticket.has_value()) admission_.Release(*it->second.ticket);
    it = attempts_.erase(it);
  }
  exhausted_jobs_.erase(job_id);
  std::erase_if(awaited_runs_, [&](const auto& awaited) { return awaited.first.job_id == job_id; });
}

}  // namespace vernier::tuner
