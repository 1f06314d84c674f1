#ifndef VERNIER_TRAINER_AGENT_MEASUREMENT_REPORTER_H_
#define VERNIER_TRAINER_AGENT_MEASUREMENT_REPORTER_H_

#include <grpcpp/channel.h>
#include <grpcpp/client_context.h>
#include <grpcpp/security/credentials.h>
#include <spdlog/logger.h>

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "trainer-agent/measurement_log.h"
#include "trainer-agent/server_pool.h"
#include "vernier/v1/agent_service.grpc.pb.h"

namespace vernier::agent {

struct ReporterOptions {
  v1::ReplicaId replica;
  absl::Duration rpc_deadline = absl::Seconds(5);
  absl::Duration initial_backoff = absl::Milliseconds(100);
  absl::Duration max_backoff = absl::Seconds(5);
  size_t max_batch_size = 100;
  size_t max_batch_bytes = 1 << 20;
  // The durable buffer (a MeasurementLog, e.g. TRIAL_DIR/.vernier/master-0/
  // measurements.log); empty keeps measurements in memory only.
  std::string log_path;
  // Beyond this many unacknowledged measurements, or this many bytes of them,
  // the oldest are dropped, so a long outage of the service can exhaust
  // neither the agent's memory nor the trial's disk.
  size_t max_queued = 1'000'000;
  size_t max_queued_bytes = 64 << 20;
  // The log is rewritten without its settled records once it is larger than
  // this and than twice the unacknowledged bytes.
  uint64_t compact_log_after_bytes = 4 << 20;
  // Seeds the backoff jitter; 0 draws a seed from std::random_device.
  uint64_t seed = 0;
  // TLS (tls::MakeChannelCredentials); null: plaintext.
  std::shared_ptr<grpc::ChannelCredentials> credentials;
  // The name checked in the server's certificate; empty: the target's host.
  std::string tls_server_name;
  // The attempt's credential, sent as `authorization: Bearer TOKEN`; empty:
  // none.
  std::string token;
};

struct ReporterCounters {
  int64_t acknowledged = 0;
  int64_t dropped = 0;
  int64_t failed_attempts = 0;
  // Unacknowledged measurements an earlier agent left in the log.
  int64_t recovered = 0;
};

// Streams measurements to vernier.v1.AgentService while the trainer runs.
//
// Enqueue numbers measurements 1, 2, 3, ... (the service stores a sequence
// number once, so a retried batch is harmless) and, with a log_path, appends
// them to the durable MeasurementLog before anything is sent. A background
// thread syncs the log, sends the oldest queued measurements in batches and
// removes them only once the service acknowledged them, recording the
// acknowledgement in the log. A reporter opened on the log of an earlier,
// killed agent first sends what that one left unacknowledged, and numbers
// new measurements after its last. Unavailable service, deadlines and other
// transient codes are retried with jittered exponential backoff for as long as
// it takes, since the service may be restarting; a batch the service rejects
// as wrong (INVALID_ARGUMENT, NOT_FOUND, FAILED_PRECONDITION, ...) is dropped
// with an error line instead of blocking the ones behind it. INTERNAL and
// UNKNOWN may be a passing failure of the service or an answer that comes
// again on every try (a request the service cannot parse): they are retried
// kMaxServerErrorAttempts times in a row, then taken as a rejection.
class MeasurementReporter {
 public:
  // A channel whose reconnect backoff matches the reporter's, so a service
  // that comes back is reached within `max_backoff` rather than gRPC's
  // default of up to two minutes.
  static std::shared_ptr<grpc::Channel> CreateChannel(const std::string& target,
                                                      const ReporterOptions& options);
  static bool IsRetryable(grpc::StatusCode code);
  // INTERNAL and UNKNOWN: retryable, but only kMaxServerErrorAttempts times.
  static bool IsServerError(grpc::StatusCode code);
  static constexpr int64_t kMaxServerErrorAttempts = 5;
  // Whether the answer `code`, the `server_errors`-th INTERNAL or UNKNOWN
  // answer in a row, is worth another try.
  static bool WorthRetrying(grpc::StatusCode code, int64_t server_errors);

  // Starts the sending thread; every call goes to the pool's current
  // server (ServerPool: one that hangs or goes away is left for the next).
  MeasurementReporter(std::shared_ptr<ServerPool> servers, ReporterOptions options,
                      std::shared_ptr<spdlog::logger> logger);
  // One server.
  MeasurementReporter(std::shared_ptr<grpc::ChannelInterface> channel, ReporterOptions options,
                      std::shared_ptr<spdlog::logger> logger);
  ~MeasurementReporter();

  MeasurementReporter(const MeasurementReporter&) = delete;
  MeasurementReporter& operator=(const MeasurementReporter&) = delete;

  // Queues a measurement and returns the sequence number it was given.
  int64_t Enqueue(v1::Measurement measurement);

  // True once the service answered should_stop; stays true.
  bool should_stop() const { return should_stop_.load(); }
  std::string stop_reason() const;

  // Waits until every queued measurement was acknowledged or dropped.
  // DEADLINE_EXCEEDED names how many are still waiting at `deadline`.
  absl::Status Flush(absl::Time deadline);

  // Reports the program's exit (the replica is filled in), retrying transient
  // failures until `give_up_at`; at least one attempt is made. Errors:
  // DEADLINE_EXCEEDED when it gave up, the service's own code when it
  // rejected the report, CANCELLED after Shutdown.
  absl::Status ReportExit(v1::ReportExitRequest request, absl::Time give_up_at);

  // Stops the sending thread; queued measurements are abandoned.
  void Shutdown();

  ReporterCounters counters() const;
  size_t queued() const;

 private:
  void SendLoop();
  void OpenLog();
  // Removes queued measurements up to `last_sequence_number` and records in
  // the log that they are settled (acknowledged, or dropped).
  void Settle(int64_t last_sequence_number, bool acknowledged);
  void DropOldestOverLimits();
  // Logs a failure of the durable log once and carries on in memory.
  void LogFailed(const absl::Status& status);
  // Sleeps for `delay` or until Shutdown; false after Shutdown.
  bool SleepUnlessShutdown(std::unique_lock<std::mutex>& lock, absl::Duration delay);

  ReporterOptions options_;
  std::shared_ptr<spdlog::logger> logger_;
  std::shared_ptr<ServerPool> servers_;
  std::atomic<bool> should_stop_{false};

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<v1::Measurement> queue_;
  size_t queued_bytes_ = 0;
  int64_t next_sequence_number_ = 1;
  int64_t settled_through_ = 0;
  // Null without a log_path; kept after a failure (log_failed_) so that the
  // sender may sync it without the lock.
  std::unique_ptr<MeasurementLog> log_;
  bool log_failed_ = false;
  bool shutdown_ = false;
  std::string stop_reason_;
  ReporterCounters counters_;
  // The RPCs under way, cancelled by Shutdown so that it does not wait out
  // their deadlines.
  grpc::ClientContext* measurements_call_ = nullptr;
  grpc::ClientContext* exit_call_ = nullptr;
  std::mt19937_64 send_rng_;
  std::mt19937_64 exit_rng_;

  std::thread sender_;
};

}  // namespace vernier::agent

#endif  // VERNIER_TRAINER_AGENT_MEASUREMENT_REPORTER_H_
