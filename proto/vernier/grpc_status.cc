#include "vernier/grpc_status.h"

#include <string>

namespace vernier {

grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  if (status.GetPayload(kRetryOnTheWirePayloadUrl).has_value()) {
    return grpc::Status(grpc::StatusCode::UNAVAILABLE, std::string(status.message()));
  }
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()), std::string(status.message()));
}

absl::Status FromGrpcStatus(const grpc::Status& status) {
  if (status.ok()) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()), status.error_message());
}

}  // namespace vernier
