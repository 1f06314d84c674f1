#include "trainer-agent/server_pool.h"

#include <utility>

#include "trainer-agent/rpc_support.h"

namespace vernier::agent {

ServerPool::ServerPool(std::vector<std::string> targets,
                       std::vector<std::shared_ptr<grpc::ChannelInterface>> channels,
                       std::shared_ptr<spdlog::logger> logger)
    : targets_(std::move(targets)), channels_(std::move(channels)), logger_(std::move(logger)) {
  targets_.resize(channels_.size());
  for (const auto& channel : channels_) stubs_.push_back(v1::AgentService::NewStub(channel));
}

std::shared_ptr<ServerPool> ServerPool::Single(std::shared_ptr<grpc::ChannelInterface> channel,
                                               std::shared_ptr<spdlog::logger> logger) {
  return std::make_shared<ServerPool>(
      std::vector<std::string>{"the service"},
      std::vector<std::shared_ptr<grpc::ChannelInterface>>{std::move(channel)}, std::move(logger));
}

ServerPool::Pick ServerPool::Current() const {
  const size_t index = current_.load();
  return Pick{index, stubs_[index].get()};
}

void ServerPool::PrepareContext(grpc::ClientContext& context, absl::Duration timeout) const {
  RpcSupport::PrepareContext(context, timeout);
  if (stubs_.size() > 1) context.set_wait_for_ready(false);
}

bool ServerPool::MovesOn(grpc::StatusCode code) {
  return code == grpc::StatusCode::UNAVAILABLE || code == grpc::StatusCode::DEADLINE_EXCEEDED;
}

void ServerPool::Done(const Pick& pick, const grpc::Status& status) {
  if (stubs_.size() < 2 || !MovesOn(status.error_code())) return;
  size_t expected = pick.index;
  const size_t next = (pick.index + 1) % stubs_.size();
  if (!current_.compare_exchange_strong(expected, next)) return;
  if (logger_ != nullptr) {
    logger_->warn("server {} did not answer ({}); reporting to {} from now on",
                  targets_[pick.index], RpcSupport::Describe(status), targets_[next]);
  }
}

}  // namespace vernier::agent
