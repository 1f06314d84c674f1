#include "tuner/grpc_socket_poller.h"

namespace vernier::tuner {

GrpcSocketPoller::GrpcSocketPoller(grpc::ServerBuilder& builder)
    : queue_(builder.AddCompletionQueue(/*is_frequently_polled=*/true)) {}

GrpcSocketPoller::~GrpcSocketPoller() { Stop(); }

void GrpcSocketPoller::Start() {
  thread_ = std::thread([queue = queue_.get()] {
    void* tag = nullptr;
    bool ok = false;
    // Nothing is requested on the queue: Next polls until the queue is shut
    // down, then returns false.
    while (queue->Next(&tag, &ok)) {
    }
  });
}

void GrpcSocketPoller::Stop() {
  if (stopped_) return;
  stopped_ = true;
  queue_->Shutdown();
  if (thread_.joinable()) {
    thread_.join();
  } else {
    // Never started: drain the queue, which must be empty before it goes.
    void* tag = nullptr;
    bool ok = false;
    while (queue_->Next(&tag, &ok)) {
    }
  }
}

}  // namespace vernier::tuner
