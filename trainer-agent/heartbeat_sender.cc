#include "trainer-agent/heartbeat_sender.h"

#include <utility>

#include "trainer-agent/rpc_support.h"

namespace vernier::agent {

HeartbeatSender::HeartbeatSender(std::shared_ptr<grpc::ChannelInterface> channel,
                                 HeartbeatOptions options, std::function<int64_t()> unacknowledged,
                                 std::shared_ptr<spdlog::logger> logger)
    : HeartbeatSender(ServerPool::Single(std::move(channel), logger), std::move(options),
                      std::move(unacknowledged), logger) {}

HeartbeatSender::HeartbeatSender(std::shared_ptr<ServerPool> servers, HeartbeatOptions options,
                                 std::function<int64_t()> unacknowledged,
                                 std::shared_ptr<spdlog::logger> logger)
    : servers_(std::move(servers)),
      options_(std::move(options)),
      unacknowledged_(std::move(unacknowledged)),
      logger_(std::move(logger)) {
  if (options_.interval <= absl::ZeroDuration()) options_.interval = absl::Milliseconds(1);
  thread_ = std::thread([this] { Loop(); });
}

HeartbeatSender::~HeartbeatSender() { Shutdown(); }

void HeartbeatSender::Shutdown() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    shutdown_ = true;
    if (call_ != nullptr) call_->TryCancel();
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::string HeartbeatSender::stop_reason() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stop_reason_;
}

void HeartbeatSender::Answered(const v1::HeartbeatResponse& response) {
  ++acknowledged_;
  if (response.should_stop() && !should_stop_.load()) {
    stop_reason_ = response.reason();
    should_stop_.store(true);
    logger_->info("heartbeat answer: the service asks to stop the trial: {}",
                  response.reason().empty() ? "(no reason given)" : response.reason());
  }
}

std::optional<bool> HeartbeatSender::CheckNow(absl::Duration timeout) {
  grpc::ClientContext context;
  servers_->PrepareContext(context, timeout);
  const ServerPool::Pick server = servers_->Current();
  v1::HeartbeatRequest request;
  *request.mutable_replica() = options_.replica;
  v1::HeartbeatResponse response;
  const grpc::Status status = server.stub->Heartbeat(&context, request, &response);
  servers_->Done(server, status);
  if (!status.ok()) return std::nullopt;
  std::lock_guard<std::mutex> lock(mutex_);
  Answered(response);
  return response.should_stop();
}

void HeartbeatSender::Loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!shutdown_) {
    const absl::Time next = absl::Now() + options_.interval;
    grpc::ClientContext context;
    servers_->PrepareContext(context, options_.rpc_deadline);
    const ServerPool::Pick server = servers_->Current();
    call_ = &context;
    v1::HeartbeatRequest request;
    *request.mutable_replica() = options_.replica;
    lock.unlock();
    if (unacknowledged_) request.set_unacknowledged_measurements(unacknowledged_());
    v1::HeartbeatResponse response;
    const grpc::Status status = server.stub->Heartbeat(&context, request, &response);
    servers_->Done(server, status);
    lock.lock();
    call_ = nullptr;
    if (shutdown_) return;
    if (status.ok()) {
      if (failure_streak_ > 0) {
        logger_->info("heartbeats reach the service again after {} failed", failure_streak_);
      }
      failure_streak_ = 0;
      Answered(response);
    } else if (status.error_code() == grpc::StatusCode::UNIMPLEMENTED) {
      logger_->warn(
          "the service does not take heartbeats ({}); stop decisions arrive with measurement "
          "reports only",
          RpcSupport::Describe(status));
      return;
    } else if (RpcSupport::WorthWarning(++failure_streak_)) {
      logger_->warn(
          "heartbeat failed ({}), {} in a row; the service fails the trial if its agent stays "
          "silent past its agent timeout",
          RpcSupport::Describe(status), failure_streak_);
    }
    changed_.wait_until(lock, absl::ToChronoTime(next), [this] { return shutdown_; });
  }
}

}  // namespace vernier::agent
