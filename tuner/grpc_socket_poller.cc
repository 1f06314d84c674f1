#include "tuner/grpc_socket_poller.h"

namespace vernier::tuner {
namespace {

// Nothing is requested on the queue: Next polls until the queue is shut
// down and empty, then returns false.
void PollUntilShutDown(grpc::ServerCompletionQueue* queue) {
  void* tag = nullptr;
  bool ok = false;
  while (queue->Next(&tag, &ok)) {
  }
}

}  // namespace

GrpcSocketPoller::GrpcSocketPoller(grpc::ServerBuilder& builder)
    : queue_(builder.AddCompletionQueue(/*is_frequently_polled=*/true)) {}

GrpcSocketPoller::~GrpcSocketPoller() { Stop(); }

void GrpcSocketPoller::Start() { thread_ = std::thread(PollUntilShutDown, queue_.get()); }

void GrpcSocketPoller::Stop() {
  if (stopped_) return;
  stopped_ = true;
  queue_->Shutdown();
  if (thread_.joinable()) {
    thread_.join();
  } else {
    // Never started: the queue must still be drained before it goes.
    PollUntilShutDown(queue_.get());
  }
}

}  // namespace vernier::tuner
