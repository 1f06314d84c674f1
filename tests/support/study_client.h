#ifndef VERNIER_TESTS_SUPPORT_STUDY_CLIENT_H_
#define VERNIER_TESTS_SUPPORT_STUDY_CLIENT_H_

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "vernier/v1/study_service.grpc.pb.h"

namespace vernier::testing {

// A channel with its own TCP connection (gRPC shares one between channels
// to the same address by default), reconnecting within a few tens of
// milliseconds once a restarted server listens again. TLS with
// `credentials` (default: plaintext).
std::shared_ptr<grpc::Channel> OwnChannel(
    const std::string& address,
    const std::shared_ptr<grpc::ChannelCredentials>& credentials =
        grpc::InsecureChannelCredentials());

// A StudyService client over its own channel, as one agent or user has:
// every call waits for a connection until its deadline and returns the
// gRPC status unchanged.
class StudyClient {
 public:
  explicit StudyClient(const std::string& address,
                       std::chrono::milliseconds deadline = std::chrono::seconds(10),
                       const std::shared_ptr<grpc::ChannelCredentials>& credentials =
                           grpc::InsecureChannelCredentials());

  grpc::Status CreateStudy(const v1::Study& study, v1::Study* created = nullptr);
  grpc::Status Suggest(const std::string& study_name, int count, const std::string& client_id,
                       v1::SuggestTrialsResponse* response);
  grpc::Status AddMeasurement(const std::string& study_name, int64_t trial_id,
                              const v1::Measurement& measurement, v1::Trial* trial = nullptr);
  // `final_measurement` null: the latest measurement becomes final.
  grpc::Status Complete(const std::string& study_name, int64_t trial_id,
                        const v1::Measurement* final_measurement, v1::Trial* trial = nullptr);
  // With its measurements.
  grpc::Status GetTrial(const std::string& study_name, int64_t trial_id, v1::Trial* trial);
  grpc::Status GetStudy(const std::string& study_name, v1::Study* study);
  // Every trial of the study, following page tokens.
  grpc::Status ListTrials(const std::string& study_name, bool include_measurements,
                          std::vector<v1::Trial>* trials);

 private:
  void Prepare(grpc::ClientContext& context) const;

  std::unique_ptr<v1::StudyService::Stub> stub_;
  std::chrono::milliseconds deadline_;
};

// A measurement at `step` with sequence number `sequence_number` and one
// metric.
v1::Measurement MakeMeasurement(int64_t step, int64_t sequence_number, const std::string& metric_id,
                                double value);

// A study over one DOUBLE parameter `x` in [0, 1], maximising `metric_id`,
// with random search.
v1::Study SimpleStudy(const std::string& name, const std::string& metric_id, int max_trials,
                      int max_parallel_trials);

}  // namespace vernier::testing

#endif  // VERNIER_TESTS_SUPPORT_STUDY_CLIENT_H_
