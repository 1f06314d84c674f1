#include "trainer-agent/agent.h"

#include <spdlog/sinks/stdout_sinks.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <system_error>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "auth/secret_redaction.h"
#include "metrics/metric_pattern.h"
#include "scheduler/container_command.h"
#include "scheduler/slurm/command_runner.h"
#include "text/control_chars.h"
#include "text/utf8_text.h"
#include "trainer-agent/output/hypertune_file_reader.h"
#include "trainer-agent/output/stdout_metric_parser.h"
#include "trainer-agent/process_supervisor.h"
#include "trainer-agent/replica_lock.h"
#include "trainer-agent/server_pool.h"
#include "trainer-agent/server_target.h"

namespace vernier::agent {
namespace {

// How long the loop sleeps at most while the program is quiet, which bounds
// how late a stop request is noticed.
constexpr absl::Duration kLoopTick = absl::Milliseconds(100);
// How often an agent waiting for another agent of its replica looks again.
constexpr absl::Duration kLockPollInterval = absl::Milliseconds(200);

std::string DescribeSignal(int signal) {
  const char* name = strsignal(signal);
  return absl::StrCat(signal, " (", name != nullptr ? name : "unknown", ")");
}

}  // namespace

Agent::Agent(AgentOptions options, std::shared_ptr<spdlog::logger> logger)
    : options_(std::move(options)), logger_(std::move(logger)) {
  v1::ReplicaId& replica = options_.reporter.replica;
  replica.set_study_name(options_.study);
  replica.set_trial_id(options_.trial);
  replica.set_role(options_.role);
  replica.set_index(options_.index);
  replica.set_attempt(options_.attempt);
  // A service that comes back hears from the agent within one heartbeat
  // interval (a quarter of its agent timeout): the reconnect backoff of the
  // channel and of the reports never grows past it.
  if (options_.heartbeat_interval > absl::ZeroDuration()) {
    options_.reporter.max_backoff =
        std::min(options_.reporter.max_backoff, options_.heartbeat_interval);
    options_.reporter.initial_backoff =
        std::min(options_.reporter.initial_backoff, options_.reporter.max_backoff);
  }
}

std::string Agent::LogPrefix(const AgentOptions& options) {
  return absl::StrCat("[vernier-agent study=", options.study, " trial=", options.trial, " ",
                      options.role, "-", options.index, "]");
}

std::shared_ptr<spdlog::logger> Agent::CreateLogger(const AgentOptions& options) {
  auto logger = std::make_shared<spdlog::logger>("vernier-agent",
                                                 std::make_shared<spdlog::sinks::stderr_sink_mt>());
  // spdlog patterns treat '%' as a flag.
  const std::string prefix = absl::StrReplaceAll(LogPrefix(options), {{"%", "%%"}});
  logger->set_pattern(absl::StrCat(prefix, " %Y-%m-%dT%H:%M:%S.%e %l: %v"));
  logger->set_level(spdlog::level::info);
  logger->flush_on(spdlog::level::trace);
  return logger;
}

std::string Agent::MetricFilePath(const AgentOptions& options) {
  // Each replica of a distributed trial has its own file: a worker starting
  // must not remove what the master already wrote.
  const bool master = options.role == "master" || options.role == "chief";
  const std::filesystem::path directory =
      master ? std::filesystem::path("hypertune")
             : std::filesystem::path(absl::StrCat(options.role, "-", options.index)) / "hypertune";
  return (std::filesystem::path(options.trial_dir) / ".vernier" / directory / "output.metrics")
      .string();
}

std::string Agent::MeasurementLogPath(const AgentOptions& options) {
  return (std::filesystem::path(options.trial_dir) / ".vernier" /
          absl::StrCat(options.role, "-", options.index) / "measurements.log")
      .string();
}

absl::StatusOr<std::string> Agent::PrepareMetricFile() {
  if (options_.trial_dir.empty()) {
    const char* tmpdir = std::getenv("TMPDIR");
    std::string pattern = absl::StrCat(tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : "/tmp",
                                       "/vernier-agent-XXXXXX");
    if (mkdtemp(pattern.data()) == nullptr) {
      return absl::FailedPreconditionError(
          absl::StrCat("no --trial-dir given and cannot create a temporary one from ", pattern,
                       ": ", strerror(errno)));
    }
    options_.trial_dir = pattern;
    logger_->info("no --trial-dir given; using {}", options_.trial_dir);
  }
  const std::filesystem::path file = MetricFilePath(options_);
  std::error_code error;
  std::filesystem::create_directories(file.parent_path(), error);
  if (error) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot create directory ", file.parent_path().string(),
                     " for CLOUD_ML_HP_METRIC_FILE: ", error.message()));
  }
  return file.string();
}

absl::Status Agent::RemoveStaleMetricFile(const std::string& path) {
  // Records of an earlier run in the same trial directory are not this run's.
  std::error_code error;
  std::filesystem::remove(path, error);
  if (error) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot remove the stale metrics file ", path, ": ", error.message()));
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> Agent::LockReplica() {
  const std::string path =
      (std::filesystem::path(MeasurementLogPath(options_)).parent_path() / "agent.lock").string();
  absl::StatusOr<ReplicaLock> lock = ReplicaLock::TryAcquire(path);
  if (lock.ok()) {
    replica_lock_ = std::make_unique<ReplicaLock>(*std::move(lock));
    return true;
  }
  if (!absl::IsUnavailable(lock.status())) return lock.status();
  // A service that relaunched a trial it thought never started: the first
  // agent runs it (or is still delivering its results). Wait for it, then run
  // the program only if the trial still needs it.
  logger_->warn("{}; waiting for it to end before running the program",
                std::string(lock.status().message()));
  while (!lock.ok()) {
    const int signal = options_.stop_signal != nullptr ? options_.stop_signal->load() : 0;
    std::string reason;
    if (signal != 0 || StopRequested(reason)) {
      logger_->info("{}; the program was not started",
                    signal != 0 ? absl::StrCat("received signal ", DescribeSignal(signal),
                                               " while waiting for the other agent")
                                : absl::StrCat("the trial is over (", reason, ")"));
      return false;
    }
    absl::SleepFor(kLockPollInterval);
    lock = ReplicaLock::TryAcquire(path);
    if (!lock.ok() && !absl::IsUnavailable(lock.status())) return lock.status();
  }
  replica_lock_ = std::make_unique<ReplicaLock>(*std::move(lock));
  if (heartbeat_ != nullptr && heartbeat_->CheckNow(options_.reporter.rpc_deadline) == true) {
    logger_->info("the other agent is gone; the trial is over ({}); the program was not started",
                  heartbeat_->stop_reason());
    return false;
  }
  logger_->info("the other agent is gone; running the program");
  return true;
}

void Agent::WriteThrough(std::string_view chunk) {
  while (!chunk.empty() && !stdout_broken_) {
    const ssize_t written = write(STDOUT_FILENO, chunk.data(), chunk.size());
    if (written > 0) {
      chunk.remove_prefix(static_cast<size_t>(written));
    } else if (written < 0 && errno != EINTR) {
      stdout_broken_ = true;
      logger_->warn("cannot write the program's output to stdout: {}; no longer copying it",
                    strerror(errno));
    }
  }
}

void Agent::Collect(std::vector<v1::Measurement> measurements) {
  const absl::Time now = absl::Now();
  const double elapsed = absl::ToDoubleSeconds(now - start_time_);
  for (v1::Measurement& measurement : measurements) {
    measurement.set_elapsed_seconds(elapsed);
    if (!measurement.has_report_time()) {
      const int64_t nanos = absl::ToUnixNanos(now);
      measurement.mutable_report_time()->set_seconds(nanos / 1'000'000'000);
      measurement.mutable_report_time()->set_nanos(static_cast<int32_t>(nanos % 1'000'000'000));
    }
    for (const v1::Metric& metric : measurement.metrics()) {
      objective_seen_ |= metric.metric_id() == options_.metric_tag;
    }
    ++measurement_count_;
    const int64_t sequence_number = reporter_->Enqueue(std::move(measurement));
    logger_->debug("measurement {} queued", sequence_number);
  }
}

bool Agent::StopRequested(std::string& reason) const {
  if (reporter_ != nullptr && reporter_->should_stop()) {
    reason = reporter_->stop_reason();
  } else if (heartbeat_ != nullptr && heartbeat_->should_stop()) {
    reason = heartbeat_->stop_reason();
  } else {
    return false;
  }
  if (reason.empty()) reason = "no reason given";
  return true;
}

int Agent::Run() {
  start_time_ = absl::Now();
  // main() checked the list; an address it would refuse is used as given.
  absl::StatusOr<std::vector<std::string>> targets = ServerTargets(options_.server);
  if (!targets.ok()) targets = std::vector<std::string>{options_.server};
  std::vector<std::shared_ptr<grpc::ChannelInterface>> channels;
  for (const std::string& target : *targets) {
    channels.push_back(MeasurementReporter::CreateChannel(target, options_.reporter));
  }
  auto servers = std::make_shared<ServerPool>(*targets, std::move(channels), logger_);
  if (options_.heartbeat_interval > absl::ZeroDuration()) {
    heartbeat_ = std::make_unique<HeartbeatSender>(
        servers,
        HeartbeatOptions{options_.reporter.replica, options_.heartbeat_interval,
                         options_.reporter.rpc_deadline},
        [this] { return unacknowledged_.load(); }, logger_);
  }
  // Arguments carry parameter values, which may hold newlines: escaped, so
  // that no value can write a line of the agent's log of its own; secrets
  // in it (HF_TOKEN=..., --api-key ...) are redacted.
  logger_->info(
      "service {}, objective metric '{}', program: {}", options_.server,
      text::ControlChars::Escape(options_.metric_tag),
      text::ControlChars::Escape(absl::StrJoin(auth::RedactCommandLine(options_.command), " ")));
  // The trial directory first: the lock and the measurement log live in it.
  absl::StatusOr<std::string> metric_file = PrepareMetricFile();
  if (metric_file.ok()) {
    absl::StatusOr<bool> locked = LockReplica();
    if (locked.ok() && !*locked) {
      if (heartbeat_ != nullptr) heartbeat_->Shutdown();
      return 0;
    }
    absl::Status ready = locked.ok() ? RemoveStaleMetricFile(*metric_file) : locked.status();
    if (!ready.ok()) metric_file = ready;
  }
  if (metric_file.ok()) options_.reporter.log_path = MeasurementLogPath(options_);
  reporter_ = std::make_unique<MeasurementReporter>(servers, options_.reporter, logger_);
  if (!metric_file.ok()) {
    logger_->error("{}", metric_file.status().ToString());
    return Finish(
        kSetupFailureExitCode, 0,
        absl::StrCat("vernier-agent: ", std::string(metric_file.status().message()), "\n"),
        /*stopped_by_request=*/false);
  }
  StdoutMetricParserOptions parsing;
  parsing.objective = options_.metric_tag;
  if (!options_.metric_regex.empty()) {
    absl::StatusOr<metrics::MetricPattern> pattern =
        metrics::MetricPattern::Compile(options_.metric_regex);
    if (!pattern.ok()) {
      const std::string message = absl::StrCat("--metric-regex '", options_.metric_regex,
                                               "': ", std::string(pattern.status().message()));
      logger_->error("{}", message);
      return Finish(kSetupFailureExitCode, 0, absl::StrCat("vernier-agent: ", message, "\n"),
                    /*stopped_by_request=*/false);
    }
    parsing.pattern = std::make_shared<const metrics::MetricPattern>(*std::move(pattern));
    logger_->info("reading metrics from the output with the pattern {}", options_.metric_regex);
  }
  StdoutMetricParser parser(logger_, std::move(parsing));
  HypertuneFileReader hypertune(*metric_file, logger_);
  ProcessSupervisor supervisor(
      options_.command,
      {{"CLOUD_ML_TRIAL_ID", absl::StrCat(options_.trial)},
       {"CLOUD_ML_HP_METRIC_FILE", *metric_file}},
      [&](std::string_view chunk) {
        WriteThrough(chunk);
        Collect(parser.Feed(chunk));
      },
      logger_);
  if (absl::Status started = supervisor.Start(); !started.ok()) {
    logger_->error("cannot start the program: {}", started.ToString());
    return Finish(kSetupFailureExitCode, 0,
                  absl::StrCat("vernier-agent: cannot start the program: ",
                               std::string(started.message()), "\n"),
                  /*stopped_by_request=*/false);
  }
  logger_->info("program started as pid {} (process group {})", supervisor.pid(), supervisor.pid());

  std::optional<ProcessExit> exit;
  bool stopped_by_request = false;
  absl::Time next_hypertune_poll = absl::Now();
  while (!exit.has_value()) {
    supervisor.PumpOutput(kLoopTick);
    unacknowledged_.store(static_cast<int64_t>(reporter_->queued()));
    if (absl::Now() >= next_hypertune_poll) {
      Collect(hypertune.Poll());
      next_hypertune_poll = absl::Now() + options_.hypertune_poll_interval;
    }
    exit = supervisor.TryWait();
    if (exit.has_value()) break;
    const int signal = options_.stop_signal != nullptr ? options_.stop_signal->load() : 0;
    std::string reason;
    if (signal != 0) {
      logger_->info("received signal {}; stopping the program", DescribeSignal(signal));
    } else if (StopRequested(reason)) {
      logger_->info("the service asked to stop the trial ({}); stopping the program", reason);
    } else {
      continue;
    }
    stopped_by_request = true;
    exit = supervisor.Stop(options_.grace_period);
  }
  RemoveContainer();
  Collect(parser.Finish());
  Collect(hypertune.Finish());
  if (exit->term_signal != 0) {
    logger_->info("program ended by signal {}", DescribeSignal(exit->term_signal));
  } else {
    logger_->info("program exited with code {}", exit->exit_code);
  }
  if (!options_.metric_tag.empty() && !objective_seen_) {
    logger_->warn("the program reported no value of the objective metric '{}' ({} measurements)",
                  options_.metric_tag, measurement_count_);
  }
  return Finish(exit->exit_code, exit->term_signal, supervisor.OutputTail(), stopped_by_request);
}

void Agent::RemoveContainer() {
  if (options_.container.empty() || options_.podman.empty()) return;
  // The trainer has ended or was killed; what its container still runs
  // goes at once.
  absl::StatusOr<scheduler::CommandOutput> removed =
      scheduler::ForceRemoveContainers(options_.podman, {options_.container});
  if (!removed.ok()) {
    logger_->error("cannot remove container {}: {}", options_.container,
                   removed.status().ToString());
  } else if (removed->exit_code != 0) {
    logger_->error("cannot remove container {}: podman rm exited with code {}: {}",
                   options_.container, removed->exit_code, removed->err);
  }
}

int Agent::Finish(int exit_code, int term_signal, std::string log_tail, bool stopped_by_request) {
  const absl::Time give_up_at = absl::Now() + options_.give_up_after;
  if (absl::Status flushed = reporter_->Flush(give_up_at); !flushed.ok()) {
    logger_->error("giving up on measurements after {}: {}",
                   absl::FormatDuration(options_.give_up_after), flushed.ToString());
  }
  v1::ReportExitRequest request;
  request.set_exit_code(exit_code);
  request.set_term_signal(term_signal);
  // Whatever the program printed, the report must parse at the service.
  request.set_log_tail(text::Utf8Text::Sanitize(log_tail));
  request.set_stopped_by_request(stopped_by_request);
  if (absl::Status reported = reporter_->ReportExit(request, give_up_at);
      absl::IsUnauthenticated(reported)) {
    // The attempt's credential died with it: the trial was settled already
    // (another replica's report, a cancel), so this exit no longer counts.
    logger_->info("the trial was over before its exit (code {}) was reported: {}", exit_code,
                  reported.ToString());
  } else if (!reported.ok()) {
    logger_->error("cannot report the exit (code {}): {}", exit_code, reported.ToString());
  } else {
    const ReporterCounters counters = reporter_->counters();
    logger_->info("reported exit code {}{} and {} measurements", exit_code,
                  stopped_by_request ? " (stopped by request)" : "", counters.acknowledged);
  }
  if (heartbeat_ != nullptr) heartbeat_->Shutdown();
  reporter_->Shutdown();
  return exit_code;
}

}  // namespace vernier::agent
