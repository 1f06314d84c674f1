#ifndef VERNIER_PROTO_VERNIER_GRPC_STATUS_H_
#define VERNIER_PROTO_VERNIER_GRPC_STATUS_H_

#include <grpcpp/support/status.h>

#include "absl/status/status.h"

namespace vernier {

// The one mapping between absl::Status (used inside) and grpc::Status (on
// the wire). Codes share their numbers; the message travels unchanged.
grpc::Status ToGrpcStatus(const absl::Status& status);
absl::Status FromGrpcStatus(const grpc::Status& status);

}  // namespace vernier

#endif  // VERNIER_PROTO_VERNIER_GRPC_STATUS_H_
