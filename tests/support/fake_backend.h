#ifndef VERNIER_TESTS_SUPPORT_FAKE_BACKEND_H_
#define VERNIER_TESTS_SUPPORT_FAKE_BACKEND_H_

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "scheduler/backend.h"

namespace vernier::testing {

// A scheduler backend for unit tests of the job controller and the trial
// run supervisor: Submit starts nothing and answers a run whose replicas are
// RUNNING (handle fake:N); the test then sets each replica's state, which
// Describe reports; Cancel ends the live replicas with SIGTERM. Thread-safe.
class FakeBackend : public scheduler::Backend {
 public:
  absl::StatusOr<v1::TrialRun> Submit(const scheduler::TrialLaunch& launch) override;
  absl::StatusOr<v1::TrialRun> Describe(const v1::TrialRun& run) override;
  absl::Status Cancel(const v1::TrialRun& run, std::chrono::milliseconds grace) override;
  // The run with the handle Submit or MarkSubmitted gave its trial and
  // attempt (its replicas RUNNING unless SetReplica says otherwise), unless
  // every replica of it has ended; else nullopt.
  absl::StatusOr<std::optional<v1::TrialRun>> FindSubmitted(const std::string& job_id,
                                                            const std::string& study_name,
                                                            const v1::TrialRun& run) override;

  std::optional<absl::Time> UnreachableSince() const override;
  absl::Time LastOutageEnded() const override;

  // Every later Submit fails with `status` (OK: they succeed again).
  void FailSubmits(absl::Status status);
  // Every later Submit calls `hook` (on the caller's thread) before it
  // answers, as if whatever it does happened while the run was submitted.
  void OnSubmit(std::function<void()> hook);
  // FindSubmitted finds attempt `attempt` of trial `trial_id` as `handle`,
  // as if its submission had been made by another server.
  void MarkSubmitted(int64_t trial_id, int32_t attempt, const std::string& handle);
  // Every later FindSubmitted fails with `status` (OK: they answer again).
  void FailFindSubmitted(absl::Status status);
  // What UnreachableSince answers from now on.
  void SetUnreachableSince(std::optional<absl::Time> since);
  // What LastOutageEnded answers from now on.
  void SetLastOutageEnded(absl::Time ended);
  // What Describe reports for a replica of the run with `handle`.
  void SetReplica(const std::string& handle, const std::string& role, int index,
                  v1::ReplicaStatus::State state, int exit_code = 0, int term_signal = 0);
  // The handle of the last run submitted for `trial_id`; empty when none.
  std::string HandleOf(int64_t trial_id);

  std::vector<scheduler::TrialLaunch> launches();
  // The handles of the runs Cancel was called for, in order.
  std::vector<std::string> cancelled();

 private:
  struct Replica {
    v1::ReplicaStatus::State state = v1::ReplicaStatus::RUNNING;
    int exit_code = 0;
    int term_signal = 0;
  };
  mutable absl::Mutex mutex_;
  absl::Status submit_error_ ABSL_GUARDED_BY(mutex_);
  absl::Status find_error_ ABSL_GUARDED_BY(mutex_);
  std::function<void()> on_submit_ ABSL_GUARDED_BY(mutex_);
  // By trial and attempt: the handles of Submit and MarkSubmitted.
  std::map<std::pair<int64_t, int32_t>, std::string> submitted_ ABSL_GUARDED_BY(mutex_);
  std::optional<absl::Time> unreachable_since_ ABSL_GUARDED_BY(mutex_);
  absl::Time last_outage_ended_ ABSL_GUARDED_BY(mutex_) = absl::InfinitePast();
  std::vector<scheduler::TrialLaunch> launches_ ABSL_GUARDED_BY(mutex_);
  std::vector<std::string> cancelled_ ABSL_GUARDED_BY(mutex_);
  std::map<int64_t, std::string> handles_ ABSL_GUARDED_BY(mutex_);
  // By handle, role and index.
  std::map<std::tuple<std::string, std::string, int>, Replica> replicas_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace vernier::testing

#endif  // VERNIER_TESTS_SUPPORT_FAKE_BACKEND_H_
