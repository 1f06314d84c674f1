#include "scheduler/local/local_backend.h"

#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <thread>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "common/status_macros.h"
#include "scheduler/container_command.h"
#include "scheduler/local/job_dir_handover.h"
#include "scheduler/local/spawn_replica.h"
#include "scheduler/path_beneath.h"
#include "scheduler/replica_state.h"
#include "scheduler/slurm/command_runner.h"
#include "scheduler/trial_run_start.h"
#include "spdlog/spdlog.h"

namespace vernier::scheduler {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

constexpr milliseconds kFirstPollInterval{5};
constexpr milliseconds kLongestPollInterval{50};

std::string LocalHostname() {
  char name[HOST_NAME_MAX + 1] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) return "localhost";
  return name;
}

std::string TrialLabel(absl::string_view job_id, int64_t trial_id) {
  return absl::StrCat("job=", job_id, " trial=", trial_id);
}

std::string ReplicaName(const v1::ReplicaStatus& replica) {
  return absl::StrCat(replica.role(), "-", replica.index());
}

std::string ReplicaName(const ReplicaLaunch& replica) {
  return absl::StrCat(replica.role, "-", replica.index);
}

void SetExited(int wait_status, v1::ReplicaStatus& replica) {
  replica.set_state(v1::ReplicaStatus::EXITED);
  if (WIFSIGNALED(wait_status)) {
    replica.set_exit_code(0);
    replica.set_term_signal(WTERMSIG(wait_status));
  } else {
    replica.set_exit_code(WEXITSTATUS(wait_status));
    replica.set_term_signal(0);
  }
}

void LogTransition(const std::string& trial_label, const v1::ReplicaStatus& replica) {
  switch (replica.state()) {
    case v1::ReplicaStatus::EXITED:
      if (replica.term_signal() != 0) {
        spdlog::info("{} {} pid={} killed by signal {} ({})", trial_label, ReplicaName(replica),
                     replica.pid(), replica.term_signal(), strsignal(replica.term_signal()));
      } else {
        spdlog::info("{} {} pid={} exited with code {}", trial_label, ReplicaName(replica),
                     replica.pid(), replica.exit_code());
      }
      break;
    case v1::ReplicaStatus::LOST:
      spdlog::warn(
          "{} {} pid={} lost: it ended while no server of this machine was its parent, or its "
          "PID now names another process",
          trial_label, ReplicaName(replica), replica.pid());
      break;
    default:
      break;
  }
}

// Whether `argv` runs the agent of `replica` of `run`'s attempt: its flags
// (before the trainer's command, after "--") name them as
// TrialLaunchBuilder writes them.
bool RunsAgentOf(const std::vector<std::string>& argv, const std::string& study_name,
                 const v1::TrialRun& run, const v1::ReplicaStatus& replica) {
  std::map<absl::string_view, absl::string_view> flags;
  for (size_t i = 1; i < argv.size() && argv[i] != "--"; ++i) {
    if (absl::StartsWith(argv[i], "--") && i + 1 < argv.size()) {
      flags.emplace(argv[i], argv[i + 1]);
      ++i;
    }
  }
  const auto is = [&flags](absl::string_view flag, absl::string_view value) {
    const auto found = flags.find(flag);
    return found != flags.end() && found->second == value;
  };
  return is("--study", study_name) && is("--trial", absl::StrCat(run.trial_id())) &&
         is("--attempt", absl::StrCat(run.attempt())) && is("--trial-dir", run.trial_dir()) &&
         is("--role", replica.role()) && is("--index", absl::StrCat(replica.index()));
}

}  // namespace

LocalBackend::LocalBackend(LocalBackendOptions options)
    : options_(std::move(options)),
      hostname_(LocalHostname()),
      process_table_(options_.proc_root) {}

absl::StatusOr<v1::TrialRun> LocalBackend::Submit(const TrialLaunch& launch) {
  ReapEndedChildren();
  const std::string trial_label = TrialLabel(launch.job_id, launch.trial_id);
  if (launch.replicas.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(trial_label, ": the launch has no replicas"));
  }
  if (absl::Status prepared = PrepareJobDirForTrialUser(launch); !prepared.ok()) {
    spdlog::error("{} study={} attempt={} could not prepare the job dir for the trial user: {}",
                  trial_label, launch.study_name, launch.attempt, prepared.ToString());
    return absl::Status(prepared.code(), absl::StrCat(trial_label, ": ", prepared.message()));
  }
  v1::TrialRun run = StartTrialRun(launch);

  LocalHandle handle{.replicas = {}, .job_id = launch.job_id};
  for (const ReplicaLaunch& replica : launch.replicas) {
    const std::string replica_label = absl::StrCat(trial_label, " replica ", ReplicaName(replica));
    const auto fail = [&](const absl::Status& status) {
      KillStarted(handle.replicas, trial_label);
      spdlog::error("{} study={} attempt={} could not start {}: {}", trial_label, launch.study_name,
                    launch.attempt, ReplicaName(replica), std::string(status.message()));
      return absl::Status(status.code(), absl::StrCat(replica_label, ": ", status.message()));
    };
    absl::StatusOr<pid_t> pid = SpawnReplica(
        replica, launch.job_dir, options_.trial_user.has_value() ? &*options_.trial_user : nullptr);
    if (!pid.ok()) return fail(pid.status());
    absl::StatusOr<ProcessStat> stat = process_table_.Stat(*pid);
    if (!stat.ok()) {
      // Not expected: an unreaped child stays in /proc. Without its start
      // time it could not be found again, so it must not run.
      killpg(*pid, SIGKILL);
      while (waitpid(*pid, nullptr, 0) < 0 && errno == EINTR) {
      }
      return fail(stat.status());
    }
    const ProcessIdentity identity{*pid, stat->start_time_ticks};
    {
      std::lock_guard lock(mutex_);
      children_[identity] = {};
    }
    handle.replicas.push_back(identity);

    v1::ReplicaStatus& status = *run.add_replicas();
    status.set_role(replica.role);
    status.set_index(replica.index);
    status.set_state(v1::ReplicaStatus::RUNNING);
    status.set_host(hostname_);
    status.set_pid(*pid);
    for (int gpu : replica.gpus) status.add_gpus(gpu);
    status.set_log_path(replica.log_path);
    spdlog::info("{} study={} attempt={} started {} pid={} gpus=[{}] log={}", trial_label,
                 launch.study_name, launch.attempt, ReplicaName(replica), *pid,
                 absl::StrJoin(replica.gpus, ","), replica.log_path);
  }
  run.set_backend_handle(handle.Format());
  return run;
}

absl::StatusOr<std::optional<v1::TrialRun>> LocalBackend::FindSubmitted(
    const std::string& job_id, const std::string& study_name, const v1::TrialRun& run) {
  ReapEndedChildren();
  const std::string trial_label = TrialLabel(job_id, run.trial_id());
  if (run.replicas().empty()) return std::nullopt;
  absl::StatusOr<std::vector<ProcessStat>> leaders = process_table_.LiveSessionLeaders();
  if (!leaders.ok()) {
    return absl::Status(leaders.status().code(),
                        absl::StrCat(trial_label, " attempt=", run.attempt(),
                                     ": cannot look for its agents: ", leaders.status().message()));
  }
  std::vector<std::optional<ProcessStat>> agents(run.replicas_size());
  for (const ProcessStat& leader : *leaders) {
    // One that ended since it was listed is not found.
    absl::StatusOr<std::vector<std::string>> argv = process_table_.CommandLine(leader.pid);
    if (!argv.ok()) continue;
    for (int i = 0; i < run.replicas_size(); ++i) {
      if (!RunsAgentOf(*argv, study_name, run, run.replicas(i))) continue;
      // The latest started, should there be two.
      if (!agents[i].has_value() || agents[i]->start_time_ticks < leader.start_time_ticks) {
        agents[i] = leader;
      }
    }
  }
  const auto found =
      std::count_if(agents.begin(), agents.end(),
                    [](const std::optional<ProcessStat>& agent) { return agent.has_value(); });
  if (found < run.replicas_size()) {
    if (found > 0) {
      spdlog::info(
          "{} attempt={} found the agents of {} of its {} replicas, not all: not taken over",
          trial_label, run.attempt(), found, run.replicas_size());
    }
    return std::nullopt;
  }
  v1::TrialRun submitted = run;
  LocalHandle handle{.replicas = {}, .job_id = job_id};
  for (int i = 0; i < submitted.replicas_size(); ++i) {
    v1::ReplicaStatus& replica = *submitted.mutable_replicas(i);
    handle.replicas.push_back({agents[i]->pid, agents[i]->start_time_ticks});
    replica.set_host(hostname_);
    replica.set_pid(agents[i]->pid);
    if (replica.state() == v1::ReplicaStatus::PENDING) {
      replica.set_state(v1::ReplicaStatus::RUNNING);
    }
  }
  submitted.set_backend_handle(handle.Format());
  return submitted;
}

absl::StatusOr<v1::TrialRun> LocalBackend::Describe(const v1::TrialRun& run) {
  ReapEndedChildren();
  absl::StatusOr<LocalHandle> handle = CheckedHandle(run);
  if (!handle.ok()) return handle.status();
  const std::string trial_label = TrialLabel(handle->job_id, run.trial_id());
  v1::TrialRun described = run;
  for (int i = 0; i < described.replicas_size(); ++i) {
    v1::ReplicaStatus& replica = *described.mutable_replicas(i);
    if (ReplicaEnded(replica)) continue;
    const ProcessIdentity& identity = handle->replicas[i];
    if (std::optional<ChildRecord> child = ReapIfOurChild(identity)) {
      if (child->wait_status.has_value()) {
        SetExited(*child->wait_status, replica);
      } else if (child->reaped_elsewhere) {
        replica.set_state(v1::ReplicaStatus::LOST);
      } else {
        replica.set_state(v1::ReplicaStatus::RUNNING);
      }
    } else {
      // Started by an earlier server: it is no child of ours, so its exit
      // status went to whoever adopted it.
      absl::StatusOr<ProcessStat> stat = process_table_.Stat(identity.pid);
      if (!stat.ok() && !absl::IsNotFound(stat.status())) {
        return absl::Status(
            stat.status().code(),
            absl::StrCat(trial_label, " ", ReplicaName(replica), ": ", stat.status().message()));
      }
      const bool running =
          stat.ok() && stat->start_time_ticks == identity.start_time_ticks && !stat->HasEnded();
      replica.set_state(running ? v1::ReplicaStatus::RUNNING : v1::ReplicaStatus::LOST);
    }
    if (replica.state() != run.replicas(i).state()) LogTransition(trial_label, replica);
  }
  return described;
}

absl::Status LocalBackend::Cancel(const v1::TrialRun& run, milliseconds grace) {
  ReapEndedChildren();
  absl::StatusOr<LocalHandle> handle = CheckedHandle(run);
  if (!handle.ok()) return handle.status();
  const std::string trial_label = TrialLabel(handle->job_id, run.trial_id());
  const steady_clock::time_point grace_end = steady_clock::now() + grace;

  std::vector<ProcessIdentity> running =
      SignalRunningGroups(handle->replicas, SIGTERM, trial_label);
  if (running.empty()) {
    spdlog::info("{} cancel: no replica was running", trial_label);
    return absl::OkStatus();
  }
  spdlog::info("{} cancel: sent SIGTERM to {} process group(s), grace {} ms", trial_label,
               running.size(), grace.count());
  running = WaitForGroups(std::move(running), grace_end);
  if (running.empty()) return absl::OkStatus();

  spdlog::warn(
      "{} cancel: {} process group(s) still running after the {} ms grace, sending SIGKILL",
      trial_label, running.size(), grace.count());
  running = SignalRunningGroups(running, SIGKILL, trial_label);
  running = WaitForGroups(std::move(running), steady_clock::now() + options_.kill_wait);
  RemoveContainers(run, handle->job_id, trial_label);
  if (running.empty()) return absl::OkStatus();

  const std::string pids = absl::StrJoin(running, ",", [](std::string* out, const auto& process) {
    absl::StrAppend(out, process.pid);
  });
  spdlog::error("{} cancel: process group(s) {} still running {} ms after SIGKILL", trial_label,
                pids, options_.kill_wait.count());
  return absl::DeadlineExceededError(absl::StrCat(trial_label, ": process group(s) ", pids,
                                                  " still running ", options_.kill_wait.count(),
                                                  " ms after SIGKILL"));
}

absl::StatusOr<LocalHandle> LocalBackend::CheckedHandle(const v1::TrialRun& run) const {
  absl::StatusOr<LocalHandle> handle = LocalHandle::Parse(run.backend_handle());
  if (!handle.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("trial ", run.trial_id(), ": ", handle.status().message()));
  }
  const std::string trial_label = TrialLabel(handle->job_id, run.trial_id());
  if (static_cast<size_t>(run.replicas_size()) != handle->replicas.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat(trial_label, ": backend_handle '", run.backend_handle(), "' names ",
                     handle->replicas.size(), " process(es) but the run has ", run.replicas_size(),
                     " replica(s)"));
  }
  for (int i = 0; i < run.replicas_size(); ++i) {
    const v1::ReplicaStatus& replica = run.replicas(i);
    if (!replica.host().empty() && replica.host() != hostname_) {
      return absl::FailedPreconditionError(
          absl::StrCat(trial_label, " ", ReplicaName(replica), ": runs on host '", replica.host(),
                       "', which the local backend of host '", hostname_, "' cannot see"));
    }
    if (replica.pid() != handle->replicas[i].pid) {
      return absl::InvalidArgumentError(absl::StrCat(
          trial_label, " ", ReplicaName(replica), ": pid ", replica.pid(), " differs from pid ",
          handle->replicas[i].pid, " in backend_handle '", run.backend_handle(), "'"));
    }
  }
  return handle;
}

std::optional<LocalBackend::ChildRecord> LocalBackend::ReapIfOurChild(
    const ProcessIdentity& identity) {
  std::lock_guard lock(mutex_);
  const auto child = children_.find(identity);
  if (child == children_.end()) return std::nullopt;
  ChildRecord& record = child->second;
  Reap(identity, record);
  return record;
}

void LocalBackend::Reap(const ProcessIdentity& identity, ChildRecord& record) {
  if (record.wait_status.has_value() || record.reaped_elsewhere) return;
  int wait_status;
  pid_t reaped;
  do {
    reaped = waitpid(identity.pid, &wait_status, WNOHANG);
  } while (reaped < 0 && errno == EINTR);
  if (reaped == identity.pid) {
    record.wait_status = wait_status;
  } else if (reaped < 0) {
    record.reaped_elsewhere = true;
  }
}

void LocalBackend::ReapEndedChildren() {
  std::lock_guard lock(mutex_);
  for (auto& [identity, record] : children_) Reap(identity, record);
}

LocalBackend::GroupState LocalBackend::CheckGroup(const ProcessIdentity& identity) {
  ReapIfOurChild(identity);
  absl::StatusOr<ProcessStat> stat = process_table_.Stat(identity.pid);
  if (stat.ok()) {
    if (stat->start_time_ticks != identity.start_time_ticks) return GroupState::kNotOurs;
    if (!stat->HasEnded()) return GroupState::kAlive;
  } else if (!absl::IsNotFound(stat.status())) {
    // Cannot tell; Cancel keeps waiting and reports it if it never ends.
    spdlog::warn("pid={}: {}", identity.pid, std::string(stat.status().message()));
    return GroupState::kAlive;
  }
  // The leader ended, but members of its group may remain. While any does,
  // the kernel keeps the group's id (the leader's PID) from being reused, so
  // a group with that id is still the replica's.
  if (killpg(identity.pid, 0) != 0 && errno == ESRCH) return GroupState::kEnded;
  absl::StatusOr<std::vector<pid_t>> members = process_table_.LiveMembersOfGroup(identity.pid);
  if (!members.ok()) {
    spdlog::warn("process group {}: {}", identity.pid, std::string(members.status().message()));
    return GroupState::kAlive;
  }
  // Zombies that nobody reaps (say, PID 1 of a container does not) keep a
  // group id in use; they have ended all the same.
  return members->empty() ? GroupState::kEnded : GroupState::kAlive;
}

std::vector<ProcessIdentity> LocalBackend::SignalRunningGroups(
    const std::vector<ProcessIdentity>& replicas, int signal_number,
    const std::string& trial_label) {
  std::vector<ProcessIdentity> running;
  for (const ProcessIdentity& identity : replicas) {
    switch (CheckGroup(identity)) {
      case GroupState::kEnded:
        continue;
      case GroupState::kNotOurs:
        spdlog::warn("{} pid={} now names another process (start time differs); not signalling it",
                     trial_label, identity.pid);
        continue;
      case GroupState::kAlive:
        break;
    }
    if (killpg(identity.pid, signal_number) != 0) {
      if (errno == ESRCH) continue;
      spdlog::error("{} cannot send {} to process group {}: {}", trial_label,
                    sigabbrev_np(signal_number), identity.pid, std::strerror(errno));
    }
    running.push_back(identity);
  }
  return running;
}

std::vector<ProcessIdentity> LocalBackend::WaitForGroups(std::vector<ProcessIdentity> replicas,
                                                         steady_clock::time_point deadline) {
  milliseconds interval = kFirstPollInterval;
  while (true) {
    std::erase_if(replicas, [this](const ProcessIdentity& identity) {
      return CheckGroup(identity) != GroupState::kAlive;
    });
    const steady_clock::time_point now = steady_clock::now();
    if (replicas.empty() || now >= deadline) return replicas;
    std::this_thread::sleep_for(std::min<steady_clock::duration>(interval, deadline - now));
    interval = std::min(interval * 2, kLongestPollInterval);
  }
}

void LocalBackend::RemoveContainers(const v1::TrialRun& run, const std::string& job_id,
                                    const std::string& trial_label) {
  if (options_.podman_path.empty()) return;
  std::vector<std::string> names;
  for (const v1::ReplicaStatus& replica : run.replicas()) {
    names.push_back(
        ContainerName(job_id, run.trial_id(), replica.role(), replica.index(), run.attempt()));
  }
  absl::StatusOr<CommandOutput> removed = ForceRemoveContainers(options_.podman_path, names);
  if (!removed.ok()) {
    spdlog::error("{} cancel: cannot remove the replicas' containers: {}", trial_label,
                  removed.status().ToString());
  } else if (removed->exit_code != 0) {
    spdlog::error("{} cancel: podman rm exited with code {}: {}", trial_label, removed->exit_code,
                  removed->err);
  } else if (!removed->out.empty()) {
    spdlog::info("{} cancel: removed container(s) {}", trial_label,
                 absl::StrJoin(absl::StrSplit(removed->out, '\n', absl::SkipEmpty()), ", "));
  }
}

absl::Status LocalBackend::PrepareJobDirForTrialUser(const TrialLaunch& launch) const {
  if (!options_.trial_user.has_value() || launch.job_dir.empty()) return absl::OkStatus();
  VERNIER_RETURN_IF_ERROR(CheckJobDirAncestors(launch.job_dir, geteuid()));
  for (const ReplicaLaunch& replica : launch.replicas) {
    if (IsBeneath(launch.job_dir, replica.working_dir)) {
      if (absl::Status made = MakeDirectoriesBeneath(launch.job_dir, replica.working_dir);
          !made.ok()) {
        return made;
      }
    }
    if (IsBeneath(launch.job_dir, replica.log_path)) {
      absl::StatusOr<int> log =
          OpenFileBeneath(launch.job_dir, replica.log_path, O_WRONLY | O_CREAT | O_APPEND);
      if (!log.ok()) return log.status();
      close(*log);
    }
  }
  return HandOverJobDir(launch.job_dir, geteuid(), *options_.trial_user);
}

void LocalBackend::KillStarted(const std::vector<ProcessIdentity>& started,
                               const std::string& trial_label) {
  if (started.empty()) return;
  spdlog::warn("{} killing the {} replica(s) already started", trial_label, started.size());
  const std::vector<ProcessIdentity> running = WaitForGroups(
      SignalRunningGroups(started, SIGKILL, trial_label), steady_clock::now() + options_.kill_wait);
  for (const ProcessIdentity& identity : running) {
    spdlog::error("{} pid={} still running {} ms after SIGKILL", trial_label, identity.pid,
                  options_.kill_wait.count());
  }
  std::lock_guard lock(mutex_);
  for (const ProcessIdentity& identity : started) {
    if (children_[identity].wait_status.has_value()) children_.erase(identity);
  }
}

}  // namespace vernier::scheduler
