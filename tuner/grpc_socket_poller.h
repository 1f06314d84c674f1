#ifndef VERNIER_TUNER_GRPC_SOCKET_POLLER_H_
#define VERNIER_TUNER_GRPC_SOCKET_POLLER_H_

#include <grpcpp/grpcpp.h>

#include <memory>
#include <thread>

namespace vernier::tuner {

// Keeps a thread reading a gRPC server's sockets at all times.
//
// A server with callback methods (AddMeasurement, ListTrials) is a "hybrid"
// server to gRPC: its synchronous handlers wait on completion queues that do
// not poll, and the sockets are read by the threads that serve the callback
// methods. In gRPC 1.51 (Debian 12), whose poller has no background thread,
// those are two threads that wait at most a second for work and then sleep
// 100 ms before they poll again. Every call that arrives during those 100 ms
// waits for them: with 37 ms between a client's calls, 18 or 19 calls in
// 472 took over 20 ms and the p99 was 80 to 95 ms (docs/benchmarks.md, "A
// server that stopped reading its sockets"). This thread waits on a
// completion queue of its own that polls and on which nothing is ever
// requested, so some thread is always in the poller, and a call is read as
// it arrives.
class GrpcSocketPoller {
 public:
  // Adds the polling completion queue to `builder`, before BuildAndStart.
  explicit GrpcSocketPoller(grpc::ServerBuilder& builder);
  // Shuts the queue down and joins the thread: the server built with the
  // queue must have been shut down (or destroyed) first.
  ~GrpcSocketPoller();
  GrpcSocketPoller(const GrpcSocketPoller&) = delete;
  GrpcSocketPoller& operator=(const GrpcSocketPoller&) = delete;

  // Starts the thread, once the server is built.
  void Start();
  // As the destructor; later calls do nothing.
  void Stop();

 private:
  std::unique_ptr<grpc::ServerCompletionQueue> queue_;
  std::thread thread_;
  bool stopped_ = false;
};

}  // namespace vernier::tuner

#endif  // VERNIER_TUNER_GRPC_SOCKET_POLLER_H_
