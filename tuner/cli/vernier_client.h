#ifndef VERNIER_TUNER_CLI_VERNIER_CLIENT_H_
#define VERNIER_TUNER_CLI_VERNIER_CLIENT_H_

#include <grpcpp/grpcpp.h>

#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "tls/tls_options.h"
#include "vernier/v1/audit_service.grpc.pb.h"
#include "vernier/v1/auth_service.grpc.pb.h"
#include "vernier/v1/job_service.grpc.pb.h"
#include "vernier/v1/study_service.grpc.pb.h"

namespace vernier::cli {

// The CLI's connection to `vernier serve`. It connects on the first call (so
// that dry runs never touch the network), puts a deadline on every unary
// call, and turns transport failures into messages that name the address.
class VernierClient {
 public:
  // The largest answer read: list pages stay under 3 MiB, a job or a trial
  // with all its measurements may be larger.
  static constexpr int kMaxReceiveBytes = 64 << 20;

  struct Options {
    std::string address = "127.0.0.1:7730";
    absl::Duration connect_timeout = absl::Seconds(3);
    absl::Duration rpc_timeout = absl::Seconds(30);
    // TLS when a CA is given (--tls-ca, $VERNIER_TLS_CA, ...).
    tls::ClientTlsOptions tls;
    // The bearer token (--token) or its file (--token-file); empty: from
    // the environment or the server's per-address file
    // (auth::ResolveClientToken).
    std::string token;
    std::string token_file;
  };

  explicit VernierClient(Options options);

  const std::string& address() const { return options_.address; }

  // With `dry_run` the server checks the job and answers it with
  // launch_preview, creating nothing.
  absl::StatusOr<v1::Job> SubmitTrainingJob(const v1::Job& job, bool dry_run = false);
  absl::StatusOr<v1::GetJobResponse> GetJob(const std::string& job_id);
  absl::StatusOr<v1::ListJobsResponse> ListJobs(int page_size, const std::string& page_token);
  absl::StatusOr<v1::Job> CancelJob(const std::string& job_id);
  absl::Status DeleteJob(const std::string& job_id);
  // Calls `on_line` for every line until the server ends the stream. No
  // deadline: a followed stream lasts as long as the job.
  absl::Status StreamLogs(const v1::StreamLogsRequest& request,
                          const std::function<absl::Status(const v1::LogLine&)>& on_line);

  absl::StatusOr<v1::Study> GetStudy(const std::string& study_name);
  // With every measurement.
  absl::StatusOr<v1::Trial> GetTrial(const std::string& study_name, int64_t trial_id);
  absl::StatusOr<v1::ListStudiesResponse> ListStudies(int page_size, const std::string& page_token);
  absl::Status DeleteStudy(const std::string& study_name);
  absl::StatusOr<v1::ListTrialsResponse> ListTrials(const v1::ListTrialsRequest& request);
  absl::StatusOr<v1::ListOptimalTrialsResponse> ListOptimalTrials(const std::string& study_name,
                                                                  int top);

  absl::StatusOr<v1::CreateTokenResponse> CreateToken(const v1::CreateTokenRequest& request);
  absl::StatusOr<v1::ListTokensResponse> ListTokens(bool include_inactive);
  absl::StatusOr<v1::ListAuditEntriesResponse> ListAuditEntries(
      const v1::ListAuditEntriesRequest& request);
  // `head_hash`: a head noted before that the log must still hold ("": none).
  absl::StatusOr<v1::VerifyAuditLogResponse> VerifyAuditLog(const std::string& head_hash = "");
  absl::StatusOr<v1::ApiToken> RevokeToken(const std::string& token_id);
  // `job` false: a study.
  absl::StatusOr<v1::ShareResponse> Share(bool job, const v1::ShareRequest& request);

 private:
  absl::Status EnsureConnected();
  std::unique_ptr<grpc::ClientContext> NewUnaryContext() const;
  absl::Status FromRpcStatus(const grpc::Status& status) const;
  template <typename Response>
  absl::StatusOr<Response> CallUnary(
      const std::function<grpc::Status(grpc::ClientContext*, Response*)>& call);

  Options options_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::JobService::Stub> jobs_;
  std::unique_ptr<v1::StudyService::Stub> studies_;
  std::unique_ptr<v1::AuthService::Stub> auth_;
  std::unique_ptr<v1::AuditService::Stub> audit_;
  bool connected_ = false;
  // Why no channel could be made (a bad TLS file); returned by every call.
  absl::Status setup_status_;
};

}  // namespace vernier::cli

#endif  // VERNIER_TUNER_CLI_VERNIER_CLIENT_H_
