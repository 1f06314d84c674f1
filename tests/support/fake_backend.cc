#include "tests/support/fake_backend.h"

#include <csignal>

#include "absl/strings/str_cat.h"

namespace vernier::testing {

absl::StatusOr<v1::TrialRun> FakeBackend::Submit(const scheduler::TrialLaunch& launch) {
  std::function<void()> hook;
  {
    absl::MutexLock lock(&mutex_);
    hook = on_submit_;
  }
  if (hook) hook();
  absl::MutexLock lock(&mutex_);
  launches_.push_back(launch);
  if (!submit_error_.ok()) return submit_error_;
  v1::TrialRun run;
  run.set_backend_handle(absl::StrCat("fake:", launches_.size()));
  for (const scheduler::ReplicaLaunch& launched : launch.replicas) {
    v1::ReplicaStatus& replica = *run.add_replicas();
    replica.set_role(launched.role);
    replica.set_index(launched.index);
    replica.set_state(v1::ReplicaStatus::RUNNING);
    replica.set_log_path(launched.log_path);
    for (int gpu : launched.gpus) replica.add_gpus(gpu);
    replicas_[{run.backend_handle(), launched.role, launched.index}] = Replica{};
  }
  handles_[launch.trial_id] = run.backend_handle();
  submitted_[{launch.trial_id, launch.attempt}] = run.backend_handle();
  return run;
}

std::optional<absl::Time> FakeBackend::UnreachableSince() const {
  absl::MutexLock lock(&mutex_);
  return unreachable_since_;
}

void FakeBackend::SetUnreachableSince(std::optional<absl::Time> since) {
  absl::MutexLock lock(&mutex_);
  unreachable_since_ = since;
}

absl::Time FakeBackend::LastOutageEnded() const {
  absl::MutexLock lock(&mutex_);
  return last_outage_ended_;
}

void FakeBackend::SetLastOutageEnded(absl::Time ended) {
  absl::MutexLock lock(&mutex_);
  last_outage_ended_ = ended;
}

absl::StatusOr<v1::TrialRun> FakeBackend::Describe(const v1::TrialRun& run) {
  absl::MutexLock lock(&mutex_);
  v1::TrialRun described = run;
  for (v1::ReplicaStatus& replica : *described.mutable_replicas()) {
    auto known = replicas_.find({run.backend_handle(), replica.role(), replica.index()});
    if (known == replicas_.end()) {
      replica.set_state(v1::ReplicaStatus::LOST);
      continue;
    }
    replica.set_state(known->second.state);
    replica.set_exit_code(known->second.exit_code);
    replica.set_term_signal(known->second.term_signal);
  }
  return described;
}

absl::Status FakeBackend::Cancel(const v1::TrialRun& run, std::chrono::milliseconds) {
  absl::MutexLock lock(&mutex_);
  cancelled_.push_back(run.backend_handle());
  for (const v1::ReplicaStatus& replica : run.replicas()) {
    auto known = replicas_.find({run.backend_handle(), replica.role(), replica.index()});
    if (known == replicas_.end()) continue;
    if (known->second.state == v1::ReplicaStatus::RUNNING ||
        known->second.state == v1::ReplicaStatus::PENDING) {
      known->second = Replica{v1::ReplicaStatus::EXITED, 0, SIGTERM};
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::optional<v1::TrialRun>> FakeBackend::FindSubmitted(
    const std::string& /*job_id*/, const std::string& /*study_name*/, const v1::TrialRun& run) {
  absl::MutexLock lock(&mutex_);
  if (!find_error_.ok()) return find_error_;
  auto submitted = submitted_.find({run.trial_id(), run.attempt()});
  if (submitted == submitted_.end()) return std::nullopt;
  v1::TrialRun found = run;
  found.set_backend_handle(submitted->second);
  bool live = false;
  for (v1::ReplicaStatus& replica : *found.mutable_replicas()) {
    auto [known, inserted] =
        replicas_.try_emplace({submitted->second, replica.role(), replica.index()}, Replica{});
    replica.set_state(known->second.state);
    live = live || replica.state() == v1::ReplicaStatus::RUNNING ||
           replica.state() == v1::ReplicaStatus::PENDING;
  }
  if (!live) return std::nullopt;
  return found;
}

void FakeBackend::MarkSubmitted(int64_t trial_id, int32_t attempt, const std::string& handle) {
  absl::MutexLock lock(&mutex_);
  submitted_[{trial_id, attempt}] = handle;
}

void FakeBackend::FailFindSubmitted(absl::Status status) {
  absl::MutexLock lock(&mutex_);
  find_error_ = std::move(status);
}

void FakeBackend::OnSubmit(std::function<void()> hook) {
  absl::MutexLock lock(&mutex_);
  on_submit_ = std::move(hook);
}

void FakeBackend::FailSubmits(absl::Status status) {
  absl::MutexLock lock(&mutex_);
  submit_error_ = std::move(status);
}

void FakeBackend::SetReplica(const std::string& handle, const std::string& role, int index,
                             v1::ReplicaStatus::State state, int exit_code, int term_signal) {
  absl::MutexLock lock(&mutex_);
  replicas_[{handle, role, index}] = Replica{state, exit_code, term_signal};
}

std::string FakeBackend::HandleOf(int64_t trial_id) {
  absl::MutexLock lock(&mutex_);
  auto handle = handles_.find(trial_id);
  return handle == handles_.end() ? "" : handle->second;
}

std::vector<scheduler::TrialLaunch> FakeBackend::launches() {
  absl::MutexLock lock(&mutex_);
  return launches_;
}

std::vector<std::string> FakeBackend::cancelled() {
  absl::MutexLock lock(&mutex_);
  return cancelled_;
}

}  // namespace vernier::testing
