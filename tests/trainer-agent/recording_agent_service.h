#ifndef VERNIER_TESTS_TRAINER_AGENT_RECORDING_AGENT_SERVICE_H_
#define VERNIER_TESTS_TRAINER_AGENT_RECORDING_AGENT_SERVICE_H_

#include <grpcpp/security/server_credentials.h>
#include <grpcpp/server.h>
#include <grpcpp/server_builder.h>
#include <stdlib.h>

#include <condition_variable>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "vernier/v1/agent_service.grpc.pb.h"

namespace vernier::agent::testing {

// An AgentService that records what agents send. Like the real service it
// stores each sequence number of a trial once, so the tests can tell a
// harmless retry from a duplicate. Failures and stop answers are scripted.
class RecordingAgentService final : public v1::AgentService::Service {
 public:
  grpc::Status ReportMeasurements(grpc::ServerContext*,
                                  const v1::ReportMeasurementsRequest* request,
                                  v1::ReportMeasurementsResponse* response) override {
    std::lock_guard<std::mutex> lock(mutex_);
    measurement_requests_.push_back(*request);
    if (reject_measurements_with_ != grpc::StatusCode::OK) {
      const grpc::StatusCode code = reject_measurements_with_;
      reject_measurements_with_ = grpc::StatusCode::OK;
      changed_.notify_all();
      return grpc::Status(code, "scripted rejection");
    }
    for (const v1::Measurement& measurement : request->measurements()) {
      if (!stored_.emplace(measurement.sequence_number(), measurement).second) ++duplicates_;
    }
    changed_.notify_all();
    if (unavailable_after_storing_ > 0) {
      --unavailable_after_storing_;
      return grpc::Status(grpc::StatusCode::UNAVAILABLE, "stored, but the answer was lost");
    }
    response->set_should_stop(should_stop_);
    response->set_reason(stop_reason_);
    return grpc::Status::OK;
  }

  grpc::Status ReportExit(grpc::ServerContext*, const v1::ReportExitRequest* request,
                          v1::ReportExitResponse*) override {
    std::lock_guard<std::mutex> lock(mutex_);
    exit_requests_.push_back(*request);
    changed_.notify_all();
    if (reject_exit_with_ != grpc::StatusCode::OK) {
      return grpc::Status(reject_exit_with_, "scripted exit rejection");
    }
    if (unavailable_exits_ > 0) {
      --unavailable_exits_;
      return grpc::Status(grpc::StatusCode::UNAVAILABLE, "not yet");
    }
    exits_.push_back(*request);
    return grpc::Status::OK;
  }

  grpc::Status Heartbeat(grpc::ServerContext*, const v1::HeartbeatRequest* request,
                         v1::HeartbeatResponse* response) override {
    std::lock_guard<std::mutex> lock(mutex_);
    heartbeats_.push_back(*request);
    changed_.notify_all();
    if (heartbeats_unimplemented_) {
      return grpc::Status(grpc::StatusCode::UNIMPLEMENTED, "an older service");
    }
    response->set_should_stop(should_stop_ || stop_on_heartbeat_);
    response->set_reason(stop_reason_);
    return grpc::Status::OK;
  }

  // Waits until `condition` (called under the lock) holds.
  bool WaitFor(const std::function<bool()>& condition, absl::Duration timeout) {
    std::unique_lock<std::mutex> lock(mutex_);
    return changed_.wait_until(lock, absl::ToChronoTime(absl::Now() + timeout), condition);
  }

  // Under the lock, for WaitFor conditions and for reading after a wait.
  const std::map<int64_t, v1::Measurement>& stored() const { return stored_; }
  const std::vector<v1::ReportMeasurementsRequest>& measurement_requests() const {
    return measurement_requests_;
  }
  const std::vector<v1::ReportExitRequest>& exit_requests() const { return exit_requests_; }
  const std::vector<v1::ReportExitRequest>& exits() const { return exits_; }
  const std::vector<v1::HeartbeatRequest>& heartbeats() const { return heartbeats_; }
  int duplicates() const { return duplicates_; }

  // Snapshot readers that take the lock.
  std::map<int64_t, v1::Measurement> StoredCopy() {
    std::lock_guard<std::mutex> lock(mutex_);
    return stored_;
  }
  std::vector<v1::ReportMeasurementsRequest> MeasurementRequestsCopy() {
    std::lock_guard<std::mutex> lock(mutex_);
    return measurement_requests_;
  }
  std::vector<v1::ReportExitRequest> ExitsCopy() {
    std::lock_guard<std::mutex> lock(mutex_);
    return exits_;
  }
  std::vector<v1::HeartbeatRequest> HeartbeatsCopy() {
    std::lock_guard<std::mutex> lock(mutex_);
    return heartbeats_;
  }
  int DuplicatesCopy() {
    std::lock_guard<std::mutex> lock(mutex_);
    return duplicates_;
  }

  void SetShouldStop(bool should_stop, std::string reason) {
    std::lock_guard<std::mutex> lock(mutex_);
    should_stop_ = should_stop;
    stop_reason_ = std::move(reason);
  }
  // Only heartbeats answer should_stop, as for a trainer that reports nothing.
  void StopOnHeartbeat(std::string reason) {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_on_heartbeat_ = true;
    stop_reason_ = std::move(reason);
  }
  void AnswerHeartbeatsUnimplemented() {
    std::lock_guard<std::mutex> lock(mutex_);
    heartbeats_unimplemented_ = true;
  }
  void AnswerUnavailableAfterStoring(int times) {
    std::lock_guard<std::mutex> lock(mutex_);
    unavailable_after_storing_ = times;
  }
  void RejectNextMeasurements(grpc::StatusCode code) {
    std::lock_guard<std::mutex> lock(mutex_);
    reject_measurements_with_ = code;
  }
  void RejectExits(grpc::StatusCode code) {
    std::lock_guard<std::mutex> lock(mutex_);
    reject_exit_with_ = code;
  }
  void AnswerExitsUnavailable(int times) {
    std::lock_guard<std::mutex> lock(mutex_);
    unavailable_exits_ = times;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<int64_t, v1::Measurement> stored_;
  std::vector<v1::ReportMeasurementsRequest> measurement_requests_;
  std::vector<v1::ReportExitRequest> exit_requests_;
  std::vector<v1::ReportExitRequest> exits_;
  std::vector<v1::HeartbeatRequest> heartbeats_;
  bool stop_on_heartbeat_ = false;
  bool heartbeats_unimplemented_ = false;
  int duplicates_ = 0;
  bool should_stop_ = false;
  std::string stop_reason_;
  int unavailable_after_storing_ = 0;
  int unavailable_exits_ = 0;
  grpc::StatusCode reject_measurements_with_ = grpc::StatusCode::OK;
  grpc::StatusCode reject_exit_with_ = grpc::StatusCode::OK;
};

// A private directory holding a Unix socket address known before any server
// listens on it, so a test can start the server late or restart it.
class SocketDirectory {
 public:
  SocketDirectory() {
    std::string pattern = "/tmp/vernier_agent_test_XXXXXX";
    if (mkdtemp(pattern.data()) != nullptr) path_ = pattern;
  }
  ~SocketDirectory() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }
  std::string address() const { return "unix:" + path_ + "/agent.sock"; }

 private:
  std::string path_;
};

inline std::unique_ptr<grpc::Server> StartServer(const std::string& address,
                                                 RecordingAgentService& service) {
  grpc::ServerBuilder builder;
  builder.AddListeningPort(address, grpc::InsecureServerCredentials());
  builder.RegisterService(&service);
  return builder.BuildAndStart();
}

}  // namespace vernier::agent::testing

#endif  // VERNIER_TESTS_TRAINER_AGENT_RECORDING_AGENT_SERVICE_H_
