#include "scheduler/slurm/slurm_backend.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <sstream>
#include <thread>
#include <utility>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "common/timestamp.h"
#include "scheduler/path_beneath.h"
#include "scheduler/replica_state.h"
#include "scheduler/slurm/slurm_handle.h"
#include "scheduler/transient_backend_error.h"
#include "scheduler/trial_run_start.h"
#include "spdlog/spdlog.h"

namespace vernier::scheduler {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

std::string TrialLabel(const std::string& job_id, int64_t trial_id) {
  return absl::StrCat("job=", job_id, " trial=", trial_id);
}

std::string ReplicaName(const v1::ReplicaStatus& replica) {
  return absl::StrCat(replica.role(), "-", replica.index());
}

// A small file's text; nullopt when it does not exist (yet).
std::optional<std::string> ReadSmallFile(const std::string& path) {
  std::ifstream file(path);
  if (!file) return std::nullopt;
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// What the batch script recorded when the replica's step ended: srun's
// status, 128+N for signal N.
std::optional<int> RecordedExitStatus(const std::string& log_path) {
  const std::optional<std::string> text = ReadSmallFile(ReplicaExitPath(log_path));
  int status = 0;
  if (!text.has_value() || !absl::SimpleAtoi(absl::StripAsciiWhitespace(*text), &status)) {
    return std::nullopt;
  }
  return status;
}

// The step wrapper writes the GPUs file first thing, so a replica without
// one never started and will write no exit status either.
bool ReplicaStarted(const std::string& log_path) {
  std::error_code ignored;
  return std::filesystem::exists(ReplicaGpusPath(log_path), ignored);
}

std::optional<std::vector<int>> RecordedGpus(const std::string& log_path) {
  const std::optional<std::string> text = ReadSmallFile(ReplicaGpusPath(log_path));
  if (!text.has_value()) return std::nullopt;
  absl::StatusOr<std::vector<int>> gpus = ParseIndexList(absl::StripAsciiWhitespace(*text));
  if (!gpus.ok()) return std::nullopt;
  return *gpus;
}

void SetExited(int exit_code, int term_signal, v1::ReplicaStatus& replica) {
  replica.set_state(v1::ReplicaStatus::EXITED);
  replica.set_exit_code(exit_code);
  replica.set_term_signal(term_signal);
}

// Below the job dir without following links (scheduler/path_beneath.h).
absl::Status CreateDirectory(const std::string& job_dir, const std::string& path) {
  if (!job_dir.empty() && IsBeneath(job_dir, path)) return MakeDirectoriesBeneath(job_dir, path);
  std::error_code error;
  std::filesystem::create_directories(path, error);
  if (error) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot create directory ", path, ": ", error.message()));
  }
  return absl::OkStatus();
}

absl::Status WriteFile(const std::string& job_dir, const std::string& path,
                       const std::string& text) {
  if (!job_dir.empty() && IsBeneath(job_dir, path)) {
    VERNIER_ASSIGN_OR_RETURN(const int fd,
                             OpenFileBeneath(job_dir, path, O_WRONLY | O_CREAT | O_TRUNC));
    absl::Cleanup close_file = [fd] { close(fd); };
    for (size_t written = 0; written < text.size();) {
      const ssize_t size = write(fd, text.data() + written, text.size() - written);
      if (size < 0 && errno == EINTR) continue;
      if (size <= 0) {
        const int error = size < 0 ? errno : EIO;
        return absl::ErrnoToStatus(error, absl::StrCat("cannot write ", path));
      }
      written += static_cast<size_t>(size);
    }
    return absl::OkStatus();
  }
  std::ofstream file(path, std::ios::trunc);
  file << text;
  file.close();
  if (!file) return absl::FailedPreconditionError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

std::string BatchScriptPath(const TrialLaunch& launch) {
  return (std::filesystem::path(BatchOutputPath(launch)).parent_path() / "slurm-job.sh").string();
}

void LogTransition(const std::string& trial_label, const std::string& slurm_job_id,
                   const v1::ReplicaStatus& replica) {
  switch (replica.state()) {
    case v1::ReplicaStatus::RUNNING:
      spdlog::info("{} slurm_job={} {} running on {} gpus=[{}]", trial_label, slurm_job_id,
                   ReplicaName(replica), replica.host(), absl::StrJoin(replica.gpus(), ","));
      break;
    case v1::ReplicaStatus::EXITED:
      spdlog::info("{} slurm_job={} {} ended: exit code {}, signal {}", trial_label, slurm_job_id,
                   ReplicaName(replica), replica.exit_code(), replica.term_signal());
      break;
    case v1::ReplicaStatus::LOST:
      spdlog::warn("{} slurm_job={} {} lost: the job ended without its status being recorded",
                   trial_label, slurm_job_id, ReplicaName(replica));
      break;
    default:
      break;
  }
}

}  // namespace

SlurmBackend::SlurmBackend(SlurmBackendOptions options)
    : options_(std::move(options)), commands_(options_.commands) {}

absl::StatusOr<std::string> SlurmBackend::PreviewLaunch(const TrialLaunch& launch) const {
  return BuildSbatchScript(launch, options_.sbatch);
}

absl::StatusOr<v1::TrialRun> SlurmBackend::Submit(const TrialLaunch& launch) {
  const std::string trial_label = TrialLabel(launch.job_id, launch.trial_id);
  const auto labelled = [&](const absl::Status& status) {
    return PrefixBackendError(absl::StrCat(trial_label, ": "), status);
  };
  absl::StatusOr<std::string> script = BuildSbatchScript(launch, options_.sbatch);
  if (!script.ok()) return labelled(script.status());
  // The nodes see these paths too (a shared file system); they must exist
  // before the job starts.
  std::vector<std::string> directories = {
      launch.trial_dir, std::filesystem::path(BatchOutputPath(launch)).parent_path().string()};
  for (const ReplicaLaunch& replica : launch.replicas) {
    if (!replica.working_dir.empty()) directories.push_back(replica.working_dir);
    directories.push_back(std::filesystem::path(replica.log_path).parent_path().string());
    // A retry writes to the same paths: an earlier attempt's status must
    // not count for it.
    std::error_code ignored;
    std::filesystem::remove(ReplicaExitPath(replica.log_path), ignored);
    std::filesystem::remove(ReplicaGpusPath(replica.log_path), ignored);
  }
  for (const std::string& directory : directories) {
    if (absl::Status status = CreateDirectory(launch.job_dir, directory); !status.ok())
      return labelled(status);
  }
  const std::string script_path = BatchScriptPath(launch);
  if (absl::Status status = WriteFile(launch.job_dir, script_path, *script); !status.ok())
    return labelled(status);
  absl::StatusOr<std::string> slurm_job_id = SubmitOnce(launch, script_path);
  if (!slurm_job_id.ok()) {
    if (IsTransientBackendError(slurm_job_id.status())) {
      spdlog::debug("{} study={} attempt={} sbatch failed while slurmctld is away: {}", trial_label,
                    launch.study_name, launch.attempt,
                    std::string(slurm_job_id.status().message()));
    } else {
      spdlog::error("{} study={} attempt={} sbatch failed: {}", trial_label, launch.study_name,
                    launch.attempt, std::string(slurm_job_id.status().message()));
    }
    return labelled(slurm_job_id.status());
  }

  v1::TrialRun run = StartTrialRun(launch);
  for (const ReplicaLaunch& replica : launch.replicas) {
    v1::ReplicaStatus& status = *run.add_replicas();
    status.set_role(replica.role);
    status.set_index(replica.index);
    status.set_state(v1::ReplicaStatus::PENDING);
    status.set_log_path(replica.log_path);
  }
  run.set_backend_handle(SlurmHandle{*slurm_job_id, launch.job_id}.Format());
  spdlog::info("{} study={} attempt={} submitted as slurm_job={} ({} replica(s), script {})",
               trial_label, launch.study_name, launch.attempt, *slurm_job_id,
               launch.replicas.size(), script_path);
  return run;
}

absl::StatusOr<std::string> SlurmBackend::SubmitOnce(const TrialLaunch& launch,
                                                     const std::string& script_path) {
  const std::string name = SlurmJobName(launch);
  const std::string comment = SlurmJobComment(launch);
  const std::string key = absl::StrCat(name, "|", comment);
  std::optional<absl::Time> unconfirmed_since;
  {
    std::lock_guard lock(mutex_);
    auto unconfirmed = unconfirmed_submissions_.find(key);
    if (unconfirmed != unconfirmed_submissions_.end()) unconfirmed_since = unconfirmed->second;
  }
  if (unconfirmed_since.has_value()) {
    // An earlier sbatch of this very attempt failed without a clear answer:
    // the job it may have submitted is the one to follow (in this trial's
    // dir, submitted since: not a job of the same name from elsewhere).
    absl::StatusOr<std::optional<std::string>> found = commands_.FindSubmitted(
        name, comment, launch.trial_dir, *unconfirmed_since - options_.controller_clock_slack);
    if (!found.ok()) return found.status();
    if (found->has_value()) {
      spdlog::info(
          "job={} trial={} attempt={} found slurm_job={} that an sbatch submitted "
          "while slurmctld was away; not submitting it again",
          launch.job_id, launch.trial_id, launch.attempt, **found);
      std::lock_guard lock(mutex_);
      unconfirmed_submissions_.erase(key);
      return **found;
    }
  }
  const absl::Time began = absl::Now();
  absl::StatusOr<std::string> submitted = commands_.Submit(script_path);
  std::lock_guard lock(mutex_);
  if (IsTransientBackendError(submitted.status())) {
    // The first such sbatch: a later one submits no earlier.
    unconfirmed_submissions_.emplace(key, began);
  } else {
    unconfirmed_submissions_.erase(key);
  }
  return submitted;
}

absl::StatusOr<std::optional<v1::TrialRun>> SlurmBackend::FindSubmitted(
    const std::string& job_id, const std::string& /*study_name*/, const v1::TrialRun& run) {
  TrialLaunch launch;
  launch.job_id = job_id;
  launch.trial_id = run.trial_id();
  launch.attempt = run.attempt();
  launch.trial_dir = run.trial_dir();
  absl::StatusOr<std::optional<std::string>> found =
      commands_.FindSubmitted(SlurmJobName(launch), SlurmJobComment(launch), launch.trial_dir,
                              FromTimestamp(run.launch_time()) - options_.controller_clock_slack);
  if (!found.ok()) {
    return PrefixBackendError(absl::StrCat(TrialLabel(job_id, run.trial_id()), " attempt=",
                                           run.attempt(), ": cannot look for its batch job: "),
                              found.status());
  }
  if (!found->has_value()) return std::nullopt;
  v1::TrialRun submitted = run;
  submitted.set_backend_handle(SlurmHandle{**found, job_id}.Format());
  return submitted;
}

std::optional<absl::Time> SlurmBackend::UnreachableSince() const {
  return commands_.outage().Since();
}

absl::Time SlurmBackend::LastOutageEnded() const { return commands_.outage().LastEnded(); }

absl::StatusOr<std::optional<SlurmJobInfo>> SlurmBackend::FindJob(
    const std::string& slurm_job_id) const {
  absl::StatusOr<std::optional<SlurmJobInfo>> job = commands_.ShowJob(slurm_job_id);
  if (!job.ok() || job->has_value()) return job;
  // Past MinJobAge only the accounting database (where there is one) knows.
  return commands_.AccountedJob(slurm_job_id);
}

absl::StatusOr<std::optional<SlurmJobInfo>> SlurmBackend::RecentJob(
    const std::string& slurm_job_id) {
  const steady_clock::time_point now = steady_clock::now();
  {
    std::lock_guard lock(mutex_);
    const auto cached = recent_jobs_.find(slurm_job_id);
    if (cached != recent_jobs_.end() && now - cached->second.asked < options_.describe_interval) {
      return cached->second.job;
    }
  }
  absl::StatusOr<std::optional<SlurmJobInfo>> job = FindJob(slurm_job_id);
  if (!job.ok()) return job;
  std::lock_guard lock(mutex_);
  if (job->has_value() && !IsEndedJobState((*job)->state)) {
    recent_jobs_[slurm_job_id] = {now, **job};
  } else {
    recent_jobs_.erase(slurm_job_id);
  }
  return job;
}

bool SlurmBackend::ExitFilesOverdue(const std::string& slurm_job_id) {
  const steady_clock::time_point now = steady_clock::now();
  std::lock_guard lock(mutex_);
  const auto [wait, first] = exit_file_waits_.try_emplace(slurm_job_id, now);
  return now - wait->second >= options_.exit_file_grace;
}

absl::StatusOr<v1::TrialRun> SlurmBackend::Describe(const v1::TrialRun& run) {
  absl::StatusOr<SlurmHandle> handle = SlurmHandle::Parse(run.backend_handle());
  if (!handle.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("trial ", run.trial_id(), ": ", handle.status().message()));
  }
  const std::string trial_label = TrialLabel(handle->job_id, run.trial_id());
  absl::StatusOr<std::optional<SlurmJobInfo>> job = RecentJob(handle->slurm_job_id);
  if (!job.ok()) {
    return PrefixBackendError(absl::StrCat(trial_label, " slurm_job=", handle->slurm_job_id, ": "),
                              job.status());
  }
  const bool waiting = job->has_value() && IsWaitingJobState((*job)->state);
  const bool ended = !job->has_value() || IsEndedJobState((*job)->state);
  int replicas_with_gpus = 0;
  v1::TrialRun described = run;
  for (v1::ReplicaStatus& replica : *described.mutable_replicas()) {
    if (ReplicaEnded(replica)) continue;
    const v1::ReplicaStatus before = replica;
    if (waiting) {
      replica.set_state(v1::ReplicaStatus::PENDING);
      continue;
    }
    if (job->has_value() && !(*job)->node_list.empty()) replica.set_host((*job)->node_list);
    if (std::optional<std::vector<int>> gpus = RecordedGpus(replica.log_path())) {
      replica.mutable_gpus()->Assign(gpus->begin(), gpus->end());
    }
    if (replica.gpus_size() > 0) ++replicas_with_gpus;
    if (std::optional<int> status = RecordedExitStatus(replica.log_path())) {
      if (*status > 128) {
        SetExited(0, *status - 128, replica);
      } else {
        SetExited(*status, 0, replica);
      }
    } else if (!ended) {
      replica.set_state(v1::ReplicaStatus::RUNNING);
    } else if (ReplicaStarted(replica.log_path()) && !ExitFilesOverdue(handle->slurm_job_id)) {
      // Its exit status may still be on its way: as it was, for now.
      continue;
    } else if (job->has_value() && (*job)->term_signal != 0) {
      // The batch shell was killed with its steps (a cancel, a time limit).
      SetExited(0, (*job)->term_signal, replica);
    } else if (job->has_value() && ((*job)->state == "COMPLETED" || (*job)->state == "FAILED")) {
      SetExited((*job)->exit_code, 0, replica);
    } else {
      replica.set_state(v1::ReplicaStatus::LOST);
    }
    if (replica.state() != before.state()) {
      LogTransition(trial_label, handle->slurm_job_id, replica);
    }
  }
  if (ended &&
      std::all_of(described.replicas().begin(), described.replicas().end(), ReplicaEnded)) {
    std::lock_guard lock(mutex_);
    exit_file_waits_.erase(handle->slurm_job_id);
  }
  // With a single replica, the job's GPUs are its GPUs even before its
  // step recorded them.
  if (replicas_with_gpus == 0 && described.replicas_size() == 1 && job->has_value() &&
      !(*job)->gpus.empty()) {
    described.mutable_replicas(0)->mutable_gpus()->Assign((*job)->gpus.begin(), (*job)->gpus.end());
  }
  return described;
}

absl::StatusOr<bool> SlurmBackend::WaitUntilEnded(const std::string& slurm_job_id,
                                                  steady_clock::time_point deadline) const {
  while (true) {
    absl::StatusOr<std::optional<SlurmJobInfo>> job = commands_.ShowJob(slurm_job_id);
    if (!job.ok()) return job.status();
    if (!job->has_value() || IsEndedJobState((*job)->state)) return true;
    const steady_clock::time_point now = steady_clock::now();
    if (now >= deadline) return false;
    std::this_thread::sleep_for(
        std::min<steady_clock::duration>(options_.poll_interval, deadline - now));
  }
}

absl::Status SlurmBackend::Cancel(const v1::TrialRun& run, milliseconds grace) {
  absl::StatusOr<SlurmHandle> handle = SlurmHandle::Parse(run.backend_handle());
  if (!handle.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("trial ", run.trial_id(), ": ", handle.status().message()));
  }
  const std::string label =
      absl::StrCat(TrialLabel(handle->job_id, run.trial_id()), " slurm_job=", handle->slurm_job_id);
  const auto labelled = [&](const absl::Status& status) {
    return PrefixBackendError(absl::StrCat(label, ": "), status);
  };
  absl::StatusOr<std::optional<SlurmJobInfo>> job = commands_.ShowJob(handle->slurm_job_id);
  if (!job.ok()) return labelled(job.status());
  if (!job->has_value() || IsEndedJobState((*job)->state)) {
    spdlog::info("{} cancel: the job had ended", label);
    return absl::OkStatus();
  }

  if (IsWaitingJobState((*job)->state)) {
    // Nothing runs yet: take it out of the queue.
    if (absl::Status status = commands_.Cancel(handle->slurm_job_id); !status.ok()) {
      return labelled(status);
    }
    spdlog::info("{} cancel: removed the pending job from Slurm's queue", label);
  } else {
    // SIGTERM to the replicas only, so that the batch script still records
    // how each ended.
    if (absl::Status status = commands_.Signal(handle->slurm_job_id, "TERM", /*full=*/false);
        !status.ok()) {
      return labelled(status);
    }
    spdlog::info("{} cancel: sent SIGTERM to every step, grace {} ms", label, grace.count());
    absl::StatusOr<bool> ended = WaitUntilEnded(handle->slurm_job_id, steady_clock::now() + grace);
    if (!ended.ok()) return labelled(ended.status());
    if (*ended) return absl::OkStatus();
    spdlog::warn("{} cancel: still running after the {} ms grace, sending SIGKILL", label,
                 grace.count());
    if (absl::Status status = commands_.Signal(handle->slurm_job_id, "KILL", /*full=*/true);
        !status.ok()) {
      return labelled(status);
    }
    if (absl::Status status = commands_.Cancel(handle->slurm_job_id); !status.ok()) {
      return labelled(status);
    }
  }
  absl::StatusOr<bool> ended =
      WaitUntilEnded(handle->slurm_job_id, steady_clock::now() + options_.kill_wait);
  if (!ended.ok()) return labelled(ended.status());
  if (*ended) return absl::OkStatus();
  spdlog::error("{} cancel: the job has not ended {} ms after it was killed", label,
                options_.kill_wait.count());
  return absl::DeadlineExceededError(absl::StrCat(
      label, ": the job has not ended ", options_.kill_wait.count(), " ms after it was killed"));
}

absl::Status SlurmBackend::CheckCapacity(const std::vector<int>& gpus_per_replica) {
  const int total = std::accumulate(gpus_per_replica.begin(), gpus_per_replica.end(), 0);
  if (total == 0) return absl::OkStatus();
  absl::StatusOr<std::vector<SlurmNodeInfo>> nodes = commands_.Nodes(options_.sbatch.partition);
  if (!nodes.ok()) return nodes.status();
  const std::string where = options_.sbatch.partition.empty()
                                ? std::string("the Slurm cluster")
                                : absl::StrCat("Slurm partition ", options_.sbatch.partition);
  if (nodes->empty()) return absl::InvalidArgumentError(absl::StrCat(where, " has no nodes"));
  const SlurmNodeInfo& largest = *std::max_element(
      nodes->begin(), nodes->end(), [](const auto& a, const auto& b) { return a.gpus < b.gpus; });
  if (largest.gpus >= total) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "the trial's replicas need ", total, " GPUs together (", absl::StrJoin(gpus_per_replica, "+"),
      ") and a trial runs on one Slurm node, but the largest node of ", where, " (", largest.name,
      ") has ", largest.gpus));
}

}  // namespace vernier::scheduler
