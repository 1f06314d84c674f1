#ifndef VERNIER_TRAINER_AGENT_HEARTBEAT_SENDER_H_
#define VERNIER_TRAINER_AGENT_HEARTBEAT_SENDER_H_

#include <grpcpp/channel.h>
#include <grpcpp/client_context.h>
#include <spdlog/logger.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "absl/time/time.h"
#include "trainer-agent/server_pool.h"
#include "vernier/v1/agent_service.grpc.pb.h"

namespace vernier::agent {

struct HeartbeatOptions {
  v1::ReplicaId replica;
  absl::Duration interval = absl::Seconds(5);
  // How long one beat may wait for a connection and an answer; the next
  // beat starts after it ends.
  absl::Duration rpc_deadline = absl::Seconds(5);
};

// Tells the service every `interval` that the replica's agent is alive, from
// its own thread, so that (a) a stop decision reaches a trainer that reports
// nothing, and (b) the service can tell a silent agent (killed, stopped, cut
// off) from a quiet trainer. The first heartbeat goes out at once. A service
// without the Heartbeat method (UNIMPLEMENTED) ends the heartbeats with one
// log line; other failures are retried at the next beat.
class HeartbeatSender {
 public:
  // `unacknowledged` (may be empty) says how many measurements wait for the
  // service; it rides along for the service's logs.
  // Beats go to the pool's current server (ServerPool).
  HeartbeatSender(std::shared_ptr<ServerPool> servers, HeartbeatOptions options,
                  std::function<int64_t()> unacknowledged, std::shared_ptr<spdlog::logger> logger);
  // One server.
  HeartbeatSender(std::shared_ptr<grpc::ChannelInterface> channel, HeartbeatOptions options,
                  std::function<int64_t()> unacknowledged, std::shared_ptr<spdlog::logger> logger);
  ~HeartbeatSender();

  HeartbeatSender(const HeartbeatSender&) = delete;
  HeartbeatSender& operator=(const HeartbeatSender&) = delete;

  // True once a heartbeat was answered with should_stop; stays true.
  bool should_stop() const { return should_stop_.load(); }
  std::string stop_reason() const;
  int64_t acknowledged() const { return acknowledged_.load(); }

  // One heartbeat from the calling thread: whether the service wants the
  // trial stopped (also remembered as should_stop), or nullopt when it did
  // not answer within `timeout`.
  std::optional<bool> CheckNow(absl::Duration timeout);

  void Shutdown();

 private:
  void Loop();
  // Under the lock: takes an answer in.
  void Answered(const v1::HeartbeatResponse& response);

  std::shared_ptr<ServerPool> servers_;
  HeartbeatOptions options_;
  std::function<int64_t()> unacknowledged_;
  std::shared_ptr<spdlog::logger> logger_;
  std::atomic<bool> should_stop_{false};
  std::atomic<int64_t> acknowledged_{0};
  int64_t failure_streak_ = 0;

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  bool shutdown_ = false;
  std::string stop_reason_;
  grpc::ClientContext* call_ = nullptr;
  std::thread thread_;
};

}  // namespace vernier::agent

#endif  // VERNIER_TRAINER_AGENT_HEARTBEAT_SENDER_H_
