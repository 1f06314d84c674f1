#ifndef VERNIER_TUNER_STUDY_SERVICE_IMPL_H_
#define VERNIER_TUNER_STUDY_SERVICE_IMPL_H_

#include <grpcpp/support/byte_buffer.h>

#include <functional>
#include <optional>

#include "tuner/study_manager.h"
#include "vernier/v1/study_service.grpc.pb.h"

namespace vernier::tuner {

// Thin gRPC handlers over StudyManager; statuses mapped once, here.
// AddMeasurement, the call agents make most, is a callback handler: under
// group commit it returns when the measurement is queued, and the store's
// writer answers once it is committed, so no server thread sleeps through
// the commit.
class StudyServiceImpl final
    : public v1::StudyService::WithCallbackMethod_AddMeasurement<v1::StudyService::Service> {
 public:
  explicit StudyServiceImpl(StudyManager& studies) : studies_(studies) {}

  grpc::Status CreateStudy(grpc::ServerContext*, const v1::CreateStudyRequest* request,
                           v1::Study* response) override;
  grpc::Status GetStudy(grpc::ServerContext*, const v1::GetStudyRequest* request,
                        v1::Study* response) override;
  grpc::Status ListStudies(grpc::ServerContext*, const v1::ListStudiesRequest* request,
                           v1::ListStudiesResponse* response) override;
  grpc::Status DeleteStudy(grpc::ServerContext*, const v1::DeleteStudyRequest* request,
                           v1::DeleteStudyResponse* response) override;
  grpc::Status SuggestTrials(grpc::ServerContext*, const v1::SuggestTrialsRequest* request,
                             v1::SuggestTrialsResponse* response) override;
  grpc::Status CreateTrial(grpc::ServerContext*, const v1::CreateTrialRequest* request,
                           v1::Trial* response) override;
  grpc::Status GetTrial(grpc::ServerContext*, const v1::GetTrialRequest* request,
                        v1::Trial* response) override;
  // ListTrials' answer, a serialized v1::ListTrialsResponse put together
  // from the stored trials' bytes (StudyManager::ListTrialBodies), so a
  // listing of many trials costs no parse and serialization of each. The
  // server registers ListTrials as a raw method (AuthorizedStudyService).
  grpc::Status ListTrialsBytes(const v1::ListTrialsRequest& request, grpc::ByteBuffer* response);
  grpc::ServerUnaryReactor* AddMeasurement(grpc::CallbackServerContext* context,
                                           const v1::AddMeasurementRequest* request,
                                           v1::Trial* response) override;
  // AddMeasurement that calls `on_finish` (when set) with the outcome just
  // before the call finishes (the audit log's record of it).
  grpc::ServerUnaryReactor* AddMeasurementThen(
      grpc::CallbackServerContext* context, const v1::AddMeasurementRequest* request,
      v1::Trial* response, std::function<void(const grpc::Status&)> on_finish);
  grpc::Status CompleteTrial(grpc::ServerContext*, const v1::CompleteTrialRequest* request,
                             v1::Trial* response) override;
  grpc::Status StopTrial(grpc::ServerContext*, const v1::StopTrialRequest* request,
                         v1::Trial* response) override;
  grpc::Status CheckEarlyStopping(grpc::ServerContext*,
                                  const v1::CheckEarlyStoppingRequest* request,
                                  v1::CheckEarlyStoppingResponse* response) override;
  grpc::Status ListOptimalTrials(grpc::ServerContext*, const v1::ListOptimalTrialsRequest* request,
                                 v1::ListOptimalTrialsResponse* response) override;
  grpc::Status ParseStudySpec(grpc::ServerContext*, const v1::ParseStudySpecRequest* request,
                              v1::ParseStudySpecResponse* response) override;
  grpc::Status SetStudyUserAttributes(grpc::ServerContext*,
                                      const v1::SetStudyUserAttributesRequest* request,
                                      v1::Study* response) override;
  grpc::Status SetTrialUserAttributes(grpc::ServerContext*,
                                      const v1::SetTrialUserAttributesRequest* request,
                                      v1::Trial* response) override;

 private:
  // CompleteTrial's work, for it and for a suggestion that completes a
  // trial first (StudyManager::CompleteTrial's `study_read`; a trial marked
  // infeasible leaves it empty).
  absl::StatusOr<v1::Trial> Complete(const v1::CompleteTrialRequest& request,
                                     std::optional<v1::Study>* study_read = nullptr);

  StudyManager& studies_;
};

}  // namespace vernier::tuner

#endif  // VERNIER_TUNER_STUDY_SERVICE_IMPL_H_
