#ifndef VERNIER_TRAINER_AGENT_AGENT_H_
#define VERNIER_TRAINER_AGENT_AGENT_H_

#include <spdlog/logger.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "trainer-agent/heartbeat_sender.h"
#include "trainer-agent/measurement_reporter.h"
#include "trainer-agent/replica_lock.h"
#include "vernier/v1/study.pb.h"

namespace vernier::agent {

struct AgentOptions {
  // AgentService address: "host:port", "unix:/path", or several "host:port"
  // of servers sharing one store, comma-separated: the agent talks to the
  // first and moves to the next when a call finds it gone or hung
  // (ServerTargets, ServerPool).
  std::string server;
  std::string study;
  int64_t trial = 0;
  std::string role = "master";
  int32_t index = 0;
  // Which attempt of the trial this is (the server's retries count up).
  int32_t attempt = 0;
  // The objective metric; the agent warns when the program never reports it.
  std::string metric_tag;
  // The job's metricRegex (see MetricPattern); empty: `name=value` tokens.
  std::string metric_regex;
  // Holds .vernier/hypertune/output.metrics; empty makes a temporary one.
  std::string trial_dir;
  absl::Duration grace_period = absl::Seconds(10);
  // How long after the program's exit the agent keeps trying to deliver its
  // measurements and exit report to an unreachable service.
  absl::Duration give_up_after = absl::Hours(1);
  absl::Duration hypertune_poll_interval = absl::Milliseconds(250);
  // Zero sends no heartbeats. Otherwise it also caps the reconnect backoff
  // (reporter.max_backoff), so a service that comes back hears from the
  // agent within one interval.
  absl::Duration heartbeat_interval = absl::Seconds(5);
  std::vector<std::string> command;
  // The container the command runs in (--container) and the podman that
  // runs it (--podman): once the program ended, however it ended, the agent
  // removes the container (`podman rm --force --ignore`), so that a trainer
  // killed after the grace period leaves no container behind. Empty: none.
  std::string container;
  std::string podman;
  // Set to a signal number (from a signal handler) to stop the program and
  // report a requested stop; 0 while nobody asked. May be null.
  const std::atomic<int>* stop_signal = nullptr;
  // Deadlines, backoff, batching and the buffer's limits; the replica and
  // the log path are filled in from above.
  ReporterOptions reporter;
};

// One agent per replica of a trial: runs the training program, streams the
// measurements it prints (stdout `name=value` lines or the job's metricRegex)
// or writes (the cloudml-hypertune file) to the service while it runs, keeps
// them on disk until the service acknowledges them, sends heartbeats, stops
// the program's whole process tree when the service or a signal says so, and
// reports how it ended.
class Agent {
 public:
  // Exit code (and reported exit code) when the agent cannot set up the run,
  // as docker's 125: the wrapper failed, not the program.
  static constexpr int kSetupFailureExitCode = 125;

  Agent(AgentOptions options, std::shared_ptr<spdlog::logger> logger);

  // Runs the program to its end and reports it. Returns the program's exit
  // code, 128 + signal when a signal ended it, 127 when it could not be
  // executed, or kSetupFailureExitCode.
  int Run();

  // "[vernier-agent study=S trial=T role-index]", the prefix of the agent's
  // own log lines, which tells them apart from the program's output.
  static std::string LogPrefix(const AgentOptions& options);
  // A logger writing to stderr with that prefix.
  static std::shared_ptr<spdlog::logger> CreateLogger(const AgentOptions& options);
  // The file the program's cloudml-hypertune library writes, under trial_dir:
  // one per replica.
  static std::string MetricFilePath(const AgentOptions& options);
  // The replica's durable measurement buffer, under trial_dir.
  static std::string MeasurementLogPath(const AgentOptions& options);

 private:
  // Makes the trial directory (a temporary one without --trial-dir) and the
  // metric file's directory; returns the metric file's path.
  absl::StatusOr<std::string> PrepareMetricFile();
  absl::Status RemoveStaleMetricFile(const std::string& path);
  // Takes the replica's lock, waiting while another agent holds it. False
  // when there is nothing left to do: the trial ended meanwhile, or a signal
  // asked the agent to stop.
  absl::StatusOr<bool> LockReplica();
  void Collect(std::vector<v1::Measurement> measurements);
  void WriteThrough(std::string_view chunk);
  bool StopRequested(std::string& reason) const;
  int Finish(int exit_code, int term_signal, std::string log_tail, bool stopped_by_request);
  // With a container: removes it, and whatever still runs in it.
  void RemoveContainer();

  AgentOptions options_;
  std::shared_ptr<spdlog::logger> logger_;
  std::unique_ptr<MeasurementReporter> reporter_;
  std::unique_ptr<HeartbeatSender> heartbeat_;
  std::unique_ptr<ReplicaLock> replica_lock_;
  // The reporter's queue length, for heartbeats (read by their thread).
  std::atomic<int64_t> unacknowledged_{0};
  absl::Time start_time_;
  bool stdout_broken_ = false;
  bool objective_seen_ = false;
  int64_t measurement_count_ = 0;
};

}  // namespace vernier::agent

#endif  // VERNIER_TRAINER_AGENT_AGENT_H_
