#ifndef VERNIER_TRAINER_AGENT_SERVER_POOL_H_
#define VERNIER_TRAINER_AGENT_SERVER_POOL_H_

#include <grpcpp/channel.h>
#include <grpcpp/client_context.h>
#include <grpcpp/support/status.h>
#include <spdlog/logger.h>

#include <atomic>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "vernier/v1/agent_service.grpc.pb.h"

namespace vernier::agent {

// The servers an agent may report to: one, or several sharing one store
// (docs/postgresql.md). Every call goes to the current one; a call that
// finds it unreachable (UNAVAILABLE) or silent (DEADLINE_EXCEEDED: a server
// that hangs, say SIGSTOPped, still accepts connections and never answers)
// moves every later call to the next server, round the list. A server that
// answers, even with an error of its own, stays the current one. With one
// server nothing moves, and calls wait for it to come back within their
// deadline; with several a call fails at once when the current server
// cannot be connected to, so that the next is tried without waiting out
// the deadline. Thread-safe.
class ServerPool {
 public:
  // `targets` and `channels` pair up, in the order tried; neither empty.
  ServerPool(std::vector<std::string> targets,
             std::vector<std::shared_ptr<grpc::ChannelInterface>> channels,
             std::shared_ptr<spdlog::logger> logger);
  // One server, for tests and single-server setups.
  static std::shared_ptr<ServerPool> Single(std::shared_ptr<grpc::ChannelInterface> channel,
                                            std::shared_ptr<spdlog::logger> logger);

  // The server a call goes to now.
  struct Pick {
    size_t index = 0;
    v1::AgentService::Stub* stub = nullptr;
  };
  Pick Current() const;
  // A deadline `timeout` from now, as RpcSupport::PrepareContext, waiting
  // for a connection only when there is no other server to try.
  void PrepareContext(grpc::ClientContext& context, absl::Duration timeout) const;
  // The outcome of a call made on `pick`: UNAVAILABLE or DEADLINE_EXCEEDED
  // moves on to the next server, unless another call did so already.
  void Done(const Pick& pick, const grpc::Status& status);
  // Whether `code` says the server did not answer at all.
  static bool MovesOn(grpc::StatusCode code);

  size_t size() const { return stubs_.size(); }
  const std::string& target(size_t index) const { return targets_[index]; }

 private:
  std::vector<std::string> targets_;
  std::vector<std::shared_ptr<grpc::ChannelInterface>> channels_;
  std::vector<std::unique_ptr<v1::AgentService::Stub>> stubs_;
  std::shared_ptr<spdlog::logger> logger_;
  std::atomic<size_t> current_{0};
};

}  // namespace vernier::agent

#endif  // VERNIER_TRAINER_AGENT_SERVER_POOL_H_
