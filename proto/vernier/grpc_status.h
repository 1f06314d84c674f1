#ifndef VERNIER_PROTO_VERNIER_GRPC_STATUS_H_
#define VERNIER_PROTO_VERNIER_GRPC_STATUS_H_

#include <grpcpp/support/status.h>

#include "absl/status/status.h"

namespace vernier {

// A status with a payload at this URL goes on the wire as UNAVAILABLE,
// whatever its code, so that clients retry it: the store marks its transient
// failures so (storage::MarkTransient), a full disk's RESOURCE_EXHAUSTED or
// an I/O error's INTERNAL included.
inline constexpr char kRetryOnTheWirePayloadUrl[] = "type.vernier.dev/storage.Transient";

// The one mapping between absl::Status (used inside) and grpc::Status (on
// the wire). Codes share their numbers, except for statuses marked with
// kRetryOnTheWirePayloadUrl; the message travels unchanged.
grpc::Status ToGrpcStatus(const absl::Status& status);
absl::Status FromGrpcStatus(const grpc::Status& status);

}  // namespace vernier

#endif  // VERNIER_PROTO_VERNIER_GRPC_STATUS_H_
