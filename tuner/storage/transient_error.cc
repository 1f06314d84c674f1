#include "tuner/storage/transient_error.h"

#include "absl/strings/cord.h"
#include "absl/strings/string_view.h"
#include "vernier/grpc_status.h"

namespace vernier::storage {
namespace {

// A payload rather than a status code marks transient failures, so that a
// caller's own UNAVAILABLE or ABORTED is never mistaken for the store's; the
// same payload makes the handlers answer UNAVAILABLE (ToGrpcStatus).
// (Pointer and length: the pointer-only constructor's null check is not a
// constant expression under -fsanitize=undefined.)
constexpr absl::string_view kTransientPayloadUrl(kRetryOnTheWirePayloadUrl,
                                                 sizeof(kRetryOnTheWirePayloadUrl) - 1);

}  // namespace

absl::Status MarkTransient(absl::Status status) {
  if (!status.ok()) status.SetPayload(kTransientPayloadUrl, absl::Cord("transient"));
  return status;
}

bool IsTransientStoreError(const absl::Status& status) {
  return !status.ok() && status.GetPayload(kTransientPayloadUrl).has_value();
}

}  // namespace vernier::storage
