#include "trainer-agent/measurement_reporter.h"

#include <grpcpp/client_context.h>
#include <grpcpp/create_channel.h>
#include <grpcpp/support/channel_arguments.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "auth/bearer_token_interceptor.h"
#include "trainer-agent/backoff.h"
#include "trainer-agent/rpc_support.h"
#include "vernier/grpc_status.h"

namespace vernier::agent {
namespace {

uint64_t PickSeed(uint64_t seed) {
  if (seed != 0) return seed;
  std::random_device device;
  return (static_cast<uint64_t>(device()) << 32) ^ device();
}

}  // namespace

std::shared_ptr<grpc::Channel> MeasurementReporter::CreateChannel(const std::string& target,
                                                                  const ReporterOptions& options) {
  grpc::ChannelArguments arguments;
  const int initial_ms = static_cast<int>(absl::ToInt64Milliseconds(options.initial_backoff));
  const int max_ms = static_cast<int>(absl::ToInt64Milliseconds(options.max_backoff));
  arguments.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, std::max(initial_ms, 1));
  arguments.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, std::max(initial_ms, 1));
  arguments.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, std::max(max_ms, 1));
  if (!options.tls_server_name.empty()) arguments.SetSslTargetNameOverride(options.tls_server_name);
  return auth::CreateChannelWithToken(
      target,
      options.credentials != nullptr ? options.credentials : grpc::InsecureChannelCredentials(),
      arguments, options.token);
}

bool MeasurementReporter::IsRetryable(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::UNAVAILABLE:
    case grpc::StatusCode::DEADLINE_EXCEEDED:
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
    case grpc::StatusCode::ABORTED:
    case grpc::StatusCode::CANCELLED:
    case grpc::StatusCode::UNKNOWN:
    case grpc::StatusCode::INTERNAL:
      return true;
    default:
      return false;
  }
}

bool MeasurementReporter::IsServerError(grpc::StatusCode code) {
  return code == grpc::StatusCode::INTERNAL || code == grpc::StatusCode::UNKNOWN;
}

bool MeasurementReporter::WorthRetrying(grpc::StatusCode code, int64_t server_errors) {
  if (!IsRetryable(code)) return false;
  return !IsServerError(code) || server_errors < kMaxServerErrorAttempts;
}

MeasurementReporter::MeasurementReporter(std::shared_ptr<grpc::ChannelInterface> channel,
                                         ReporterOptions options,
                                         std::shared_ptr<spdlog::logger> logger)
    : MeasurementReporter(ServerPool::Single(std::move(channel), logger), std::move(options),
                          logger) {}

MeasurementReporter::MeasurementReporter(std::shared_ptr<ServerPool> servers,
                                         ReporterOptions options,
                                         std::shared_ptr<spdlog::logger> logger)
    : options_(std::move(options)), logger_(std::move(logger)), servers_(std::move(servers)) {
  const uint64_t seed = PickSeed(options_.seed);
  send_rng_.seed(seed);
  exit_rng_.seed(seed ^ 0x9E3779B97F4A7C15ULL);
  options_.max_batch_size = std::max<size_t>(options_.max_batch_size, 1);
  options_.max_queued = std::max<size_t>(options_.max_queued, 1);
  if (!options_.log_path.empty()) OpenLog();
  sender_ = std::thread([this] { SendLoop(); });
}

void MeasurementReporter::OpenLog() {
  absl::StatusOr<std::unique_ptr<MeasurementLog>> log =
      MeasurementLog::Open(options_.log_path, options_.replica, logger_);
  if (!log.ok()) {
    logger_->error("cannot keep measurements on disk ({}); keeping them in memory only",
                   log.status().ToString());
    return;
  }
  log_ = *std::move(log);
  MeasurementLog::Recovered recovered = log_->TakeRecovered();
  settled_through_ = recovered.settled_through;
  next_sequence_number_ = recovered.last_sequence_number + 1;
  counters_.recovered = static_cast<int64_t>(recovered.unsettled.size());
  for (v1::Measurement& measurement : recovered.unsettled) {
    queued_bytes_ += measurement.ByteSizeLong();
    queue_.push_back(std::move(measurement));
  }
  if (!queue_.empty()) {
    logger_->info(
        "{} holds {} measurements an earlier agent left unacknowledged (sequence numbers {}..{}); "
        "sending them first",
        log_->path(), queue_.size(), queue_.front().sequence_number(),
        queue_.back().sequence_number());
  } else if (recovered.last_sequence_number > 0) {
    logger_->info(
        "{}: all {} measurements of an earlier agent were acknowledged; continuing "
        "from sequence number {}",
        log_->path(), recovered.last_sequence_number, next_sequence_number_);
  }
  DropOldestOverLimits();
}

void MeasurementReporter::LogFailed(const absl::Status& status) {
  if (log_failed_) return;
  log_failed_ = true;
  logger_->error(
      "the measurement log failed ({}); from now on unacknowledged measurements are kept in "
      "memory only and would not survive a restart of the agent",
      status.ToString());
}

MeasurementReporter::~MeasurementReporter() { Shutdown(); }

void MeasurementReporter::Shutdown() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    shutdown_ = true;
    if (measurements_call_ != nullptr) measurements_call_->TryCancel();
    if (exit_call_ != nullptr) exit_call_->TryCancel();
  }
  changed_.notify_all();
  if (sender_.joinable()) sender_.join();
}

int64_t MeasurementReporter::Enqueue(v1::Measurement measurement) {
  int64_t sequence_number = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    sequence_number = next_sequence_number_++;
    measurement.set_sequence_number(sequence_number);
    if (log_ != nullptr && !log_failed_) {
      if (absl::Status status = log_->Append(measurement); !status.ok()) LogFailed(status);
    }
    queued_bytes_ += measurement.ByteSizeLong();
    queue_.push_back(std::move(measurement));
    DropOldestOverLimits();
  }
  changed_.notify_all();
  return sequence_number;
}

void MeasurementReporter::DropOldestOverLimits() {
  // The newest measurement always stays: it is the trial's latest result.
  while (queue_.size() > 1 &&
         (queue_.size() > options_.max_queued || queued_bytes_ > options_.max_queued_bytes)) {
    ++counters_.dropped;
    if (counters_.dropped == 1 || counters_.dropped % 1000 == 0) {
      logger_->error(
          "{} measurements ({} bytes) waiting for the service exceed the buffer limit ({} "
          "measurements, {} bytes); dropped the oldest, sequence number {} ({} dropped so far)",
          queue_.size(), queued_bytes_, options_.max_queued, options_.max_queued_bytes,
          queue_.front().sequence_number(), counters_.dropped);
    }
    const int64_t dropped = queue_.front().sequence_number();
    queued_bytes_ -= queue_.front().ByteSizeLong();
    queue_.pop_front();
    settled_through_ = std::max(settled_through_, dropped);
    if (log_ != nullptr && !log_failed_) {
      if (absl::Status status = log_->MarkDropped(dropped); !status.ok()) LogFailed(status);
    }
  }
}

std::string MeasurementReporter::stop_reason() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stop_reason_;
}

ReporterCounters MeasurementReporter::counters() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return counters_;
}

size_t MeasurementReporter::queued() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return queue_.size();
}

absl::Status MeasurementReporter::Flush(absl::Time deadline) {
  std::unique_lock<std::mutex> lock(mutex_);
  const bool drained = changed_.wait_until(lock, absl::ToChronoTime(deadline),
                                           [this] { return queue_.empty() || shutdown_; });
  if (queue_.empty()) return absl::OkStatus();
  if (!drained) {
    return absl::DeadlineExceededError(
        absl::StrCat(queue_.size(),
                     " measurements still unacknowledged by the service (from "
                     "sequence number ",
                     queue_.front().sequence_number(), ")"));
  }
  return absl::CancelledError(
      absl::StrCat("reporter shut down with ", queue_.size(), " measurements unacknowledged"));
}

void MeasurementReporter::Settle(int64_t last_sequence_number, bool acknowledged) {
  // By sequence number, not count: Enqueue may have dropped the oldest
  // entries while the batch was in flight.
  while (!queue_.empty() && queue_.front().sequence_number() <= last_sequence_number) {
    queued_bytes_ -= queue_.front().ByteSizeLong();
    queue_.pop_front();
  }
  if (last_sequence_number <= settled_through_) return;
  settled_through_ = last_sequence_number;
  if (log_ == nullptr || log_failed_) return;
  absl::Status status = acknowledged ? log_->MarkAcknowledged(last_sequence_number)
                                     : log_->MarkDropped(last_sequence_number);
  if (status.ok() && log_->size_bytes() >
                         std::max<uint64_t>(options_.compact_log_after_bytes, 2 * queued_bytes_)) {
    status = log_->Compact(settled_through_, queue_);
  }
  if (!status.ok()) LogFailed(status);
}

bool MeasurementReporter::SleepUnlessShutdown(std::unique_lock<std::mutex>& lock,
                                              absl::Duration delay) {
  changed_.wait_until(lock, absl::ToChronoTime(absl::Now() + delay), [this] { return shutdown_; });
  return !shutdown_;
}

void MeasurementReporter::SendLoop() {
  Backoff backoff(options_.initial_backoff, options_.max_backoff, send_rng_);
  int64_t failure_streak = 0;
  int64_t server_errors = 0;
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    changed_.wait(lock, [this] { return shutdown_ || !queue_.empty(); });
    if (shutdown_) return;

    v1::ReportMeasurementsRequest request;
    *request.mutable_replica() = options_.replica;
    size_t bytes = 0;
    for (const v1::Measurement& measurement : queue_) {
      if (request.measurements_size() >= static_cast<int>(options_.max_batch_size)) break;
      const size_t size = measurement.ByteSizeLong();
      if (request.measurements_size() > 0 && bytes + size > options_.max_batch_bytes) break;
      bytes += size;
      *request.add_measurements() = measurement;
    }
    const int64_t first = request.measurements(0).sequence_number();
    const int64_t last = request.measurements(request.measurements_size() - 1).sequence_number();

    grpc::ClientContext context;
    servers_->PrepareContext(context, options_.rpc_deadline);
    const ServerPool::Pick server = servers_->Current();
    measurements_call_ = &context;
    const bool sync_log = log_ != nullptr && !log_failed_;
    lock.unlock();
    // What the service may see is on disk first, so a crash of the machine
    // cannot leave the service with measurements the log has lost.
    const absl::Status synced = sync_log ? log_->Sync() : absl::OkStatus();
    v1::ReportMeasurementsResponse response;
    const grpc::Status status = server.stub->ReportMeasurements(&context, request, &response);
    servers_->Done(server, status);
    lock.lock();
    measurements_call_ = nullptr;
    if (!synced.ok()) LogFailed(synced);
    if (shutdown_) return;

    if (status.ok()) {
      if (failure_streak > 0) {
        logger_->info(
            "service reachable again; measurements {}..{} acknowledged after {} failed "
            "attempts",
            first, last, failure_streak);
      }
      failure_streak = 0;
      server_errors = 0;
      backoff.Reset();
      Settle(last, /*acknowledged=*/true);
      counters_.acknowledged += request.measurements_size();
      if (response.should_stop() && !should_stop_.load()) {
        stop_reason_ = response.reason();
        should_stop_.store(true);
        logger_->info("service asks to stop the trial: {}",
                      response.reason().empty() ? "(no reason given)" : response.reason());
      }
      changed_.notify_all();
      continue;
    }
    ++counters_.failed_attempts;
    server_errors = IsServerError(status.error_code()) ? server_errors + 1 : 0;
    if (!WorthRetrying(status.error_code(), server_errors)) {
      logger_->error("service rejected measurements {}..{} with {}{}; dropped them", first, last,
                     RpcSupport::Describe(status),
                     server_errors > 0 ? absl::StrCat(" (", server_errors, " times in a row)")
                                       : std::string());
      failure_streak = 0;
      server_errors = 0;
      backoff.Reset();
      Settle(last, /*acknowledged=*/false);
      counters_.dropped += request.measurements_size();
      changed_.notify_all();
      continue;
    }
    ++failure_streak;
    const absl::Duration delay = backoff.Next();
    if (RpcSupport::WorthWarning(failure_streak)) {
      logger_->warn("cannot report measurements {}..{} ({}), attempt {}; retrying in {}", first,
                    last, RpcSupport::Describe(status), failure_streak,
                    absl::FormatDuration(delay));
    }
    if (!SleepUnlessShutdown(lock, delay)) return;
  }
}

absl::Status MeasurementReporter::ReportExit(v1::ReportExitRequest request, absl::Time give_up_at) {
  *request.mutable_replica() = options_.replica;
  std::unique_lock<std::mutex> lock(mutex_);
  Backoff backoff(options_.initial_backoff, options_.max_backoff, exit_rng_);
  int64_t server_errors = 0;
  for (int64_t attempt = 1;; ++attempt) {
    if (shutdown_) return absl::CancelledError("reporter shut down before the exit was reported");
    grpc::ClientContext context;
    servers_->PrepareContext(context, options_.rpc_deadline);
    const ServerPool::Pick server = servers_->Current();
    exit_call_ = &context;
    lock.unlock();
    v1::ReportExitResponse response;
    const grpc::Status status = server.stub->ReportExit(&context, request, &response);
    servers_->Done(server, status);
    lock.lock();
    exit_call_ = nullptr;
    if (status.ok()) {
      if (attempt > 1) logger_->info("exit reported after {} attempts", attempt);
      return absl::OkStatus();
    }
    ++counters_.failed_attempts;
    server_errors = IsServerError(status.error_code()) ? server_errors + 1 : 0;
    if (!WorthRetrying(status.error_code(), server_errors)) {
      const absl::Status rejected = FromGrpcStatus(status);
      return absl::Status(
          rejected.code(),
          absl::StrCat("service rejected the exit report",
                       server_errors > 0 ? absl::StrCat(" (", server_errors, " times in a row)")
                                         : std::string(),
                       ": ", rejected.message()));
    }
    const absl::Duration delay = backoff.Next();
    if (absl::Now() + delay > give_up_at) {
      return absl::DeadlineExceededError(absl::StrCat("gave up reporting the exit after ", attempt,
                                                      " attempts; last error ",
                                                      RpcSupport::Describe(status)));
    }
    if (RpcSupport::WorthWarning(attempt)) {
      logger_->warn("cannot report the exit ({}), attempt {}; retrying in {}",
                    RpcSupport::Describe(status), attempt, absl::FormatDuration(delay));
    }
    if (!SleepUnlessShutdown(lock, delay)) {
      return absl::CancelledError("reporter shut down before the exit was reported");
    }
  }
}

}  // namespace vernier::agent
