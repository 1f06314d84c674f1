// GrpcSocketPoller's life beside a real in-process gRPC server: it polls
// while the server serves, and stops once the server has shut down, whether
// it was started or not. (What it is for, calls no longer delayed 100 ms
// while gRPC's callback threads sleep, is a latency: measured by
// bench/early_stopping/decision_latency.py --gap-ms, docs/benchmarks.md.)

#include "tuner/grpc_socket_poller.h"

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace vernier::tuner {
namespace {

// gRPC health checking's Check with an empty request: SERVING is the bytes
// 08 01 (field 1, value 1). The default health service is a callback
// service, so the server is a hybrid one, as `vernier serve` is.
std::string CheckHealth(const std::string& address) {
  std::shared_ptr<grpc::Channel> channel =
      grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
  grpc::GenericStub stub(channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  grpc::Slice empty("");
  grpc::ByteBuffer request(&empty, 1);
  grpc::ByteBuffer response;
  std::promise<grpc::Status> done;
  stub.UnaryCall(&context, "/grpc.health.v1.Health/Check", grpc::StubOptions(), &request, &response,
                 [&](grpc::Status status) { done.set_value(std::move(status)); });
  const grpc::Status status = done.get_future().get();
  if (!status.ok()) return "error: " + status.error_message();
  std::vector<grpc::Slice> slices;
  if (!response.Dump(&slices).ok()) return "error: unreadable response";
  std::string bytes;
  for (const grpc::Slice& slice : slices) {
    bytes.append(reinterpret_cast<const char*>(slice.begin()), slice.size());
  }
  return bytes;
}

TEST(GrpcSocketPollerTest, PollsWhileTheServerServesAndStopsAfterIt) {
  grpc::EnableDefaultHealthCheckService(true);
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  GrpcSocketPoller poller(builder);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  ASSERT_NE(server, nullptr);
  poller.Start();
  // Calls over a few seconds, so the callback threads' sleeps fall between.
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(CheckHealth("127.0.0.1:" + std::to_string(port)), std::string("\x08\x01", 2));
    std::this_thread::sleep_for(std::chrono::milliseconds(600));
  }
  server->Shutdown(std::chrono::system_clock::now());
  poller.Stop();
  poller.Stop();  // again: nothing
}

TEST(GrpcSocketPollerTest, ANeverStartedPollerStopsAfterAServerThatWasNotBuilt) {
  grpc::ServerBuilder builder;
  int port = 0;
  // A port that cannot be bound: the build fails, as `vernier serve` on a
  // taken port does, and the poller was never started.
  builder.AddListeningPort("256.0.0.1:1", grpc::InsecureServerCredentials(), &port);
  GrpcSocketPoller poller(builder);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  EXPECT_EQ(server, nullptr);
  poller.Stop();
}

TEST(GrpcSocketPollerTest, ItsDestructorStopsItAfterTheServerIsDestroyed) {
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  auto poller = std::make_unique<GrpcSocketPoller>(builder);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  ASSERT_NE(server, nullptr);
  poller->Start();
  server.reset();  // shuts down
  poller.reset();
}

}  // namespace
}  // namespace vernier::tuner
