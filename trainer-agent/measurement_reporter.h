#ifndef VERNIER_TRAINER_AGENT_MEASUREMENT_REPORTER_H_
#define VERNIER_TRAINER_AGENT_MEASUREMENT_REPORTER_H_

#include <grpcpp/channel.h>
#include <grpcpp/client_context.h>
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
#include "vernier/v1/agent_service.grpc.pb.h"

namespace vernier::agent {

struct ReporterOptions {
  v1::ReplicaId replica;
  absl::Duration rpc_deadline = absl::Seconds(5);
  absl::Duration initial_backoff = absl::Milliseconds(100);
  absl::Duration max_backoff = absl::Seconds(5);
  size_t max_batch_size = 100;
  size_t max_batch_bytes = 1 << 20;
  // Beyond this many unacknowledged measurements the oldest are dropped, so a
  // long outage of the service cannot exhaust the agent's memory.
  size_t max_queued = 100'000;
  // Seeds the backoff jitter; 0 draws a seed from std::random_device.
  uint64_t seed = 0;
};

struct ReporterCounters {
  int64_t acknowledged = 0;
  int64_t dropped = 0;
  int64_t failed_attempts = 0;
};

// Streams measurements to vernier.v1.AgentService while the trainer runs.
//
// Enqueue numbers measurements 1, 2, 3, ... (the service stores a sequence
// number once, so a retried batch is harmless). A background thread sends the
// oldest queued measurements in batches and removes them only once the
// service acknowledged them. Unavailable service, deadlines and other
// transient codes are retried with jittered exponential backoff for as long as
// it takes, since the service may be restarting; a batch the service rejects
// as wrong (INVALID_ARGUMENT, NOT_FOUND, FAILED_PRECONDITION, ...) is dropped
// with an error line instead of blocking the ones behind it.
class MeasurementReporter {
 public:
  // A channel whose reconnect backoff matches the reporter's, so a service
  // that comes back is reached within `max_backoff` rather than gRPC's
  // default of up to two minutes.
  static std::shared_ptr<grpc::Channel> CreateChannel(const std::string& target,
                                                      const ReporterOptions& options);
  static bool IsRetryable(grpc::StatusCode code);

  // Starts the sending thread.
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
  void RemoveThrough(int64_t last_sequence_number);
  // Sleeps for `delay` or until Shutdown; false after Shutdown.
  bool SleepUnlessShutdown(std::unique_lock<std::mutex>& lock, absl::Duration delay);

  ReporterOptions options_;
  std::shared_ptr<spdlog::logger> logger_;
  std::unique_ptr<v1::AgentService::Stub> stub_;
  std::atomic<bool> should_stop_{false};

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<v1::Measurement> queue_;
  int64_t next_sequence_number_ = 1;
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
