#include "scheduler/transient_backend_error.h"

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace vernier::scheduler {
namespace {

// A payload rather than a status code marks transient failures, so that a
// backend's other UNAVAILABLE errors (a command that cannot be started) are
// never mistaken for a controller that is away. Not the store's payload: a
// cluster away is not a store away.
constexpr absl::string_view kTransientPayloadUrl = "type.vernier.dev/scheduler.Transient";

}  // namespace

absl::Status MarkBackendTransient(absl::Status status) {
  if (!status.ok()) status.SetPayload(kTransientPayloadUrl, absl::Cord("transient"));
  return status;
}

bool IsTransientBackendError(const absl::Status& status) {
  return !status.ok() && status.GetPayload(kTransientPayloadUrl).has_value();
}

absl::Status PrefixBackendError(absl::string_view prefix, const absl::Status& status) {
  absl::Status prefixed(status.code(), absl::StrCat(prefix, status.message()));
  return IsTransientBackendError(status) ? MarkBackendTransient(prefixed) : prefixed;
}

}  // namespace vernier::scheduler
